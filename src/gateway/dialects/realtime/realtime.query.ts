/**
 * The query of a `/v1/realtime` upgrade, checked before anything else (no secret is spent on a URL
 * that cannot be served). The GA client sends `?intent=transcription`; `?model=` is what
 * conversational clients send, and it is accepted when it names a transcription model, so that a
 * client configured with one still lands on a transcription session.
 */
import { AppError } from '../../../platform/errors/app-error';
import { TRANSCRIPTION_MODEL } from '../../../session-core';
import { isServedModel } from './realtime.session-update';

export function checkRealtimeQuery(rawUrl: string | undefined): void {
  const query = new URL(rawUrl ?? '/', 'http://localhost').searchParams;
  const intent = query.get('intent');
  if (intent !== null && intent !== 'transcription') {
    throw invalid(
      'intent',
      `intent=${intent} is not served: this socket serves transcription sessions (intent=transcription)`,
    );
  }
  const model = query.get('model');
  if (model !== null && !isServedModel(model)) {
    throw invalid(
      'model',
      `The model ${JSON.stringify(model)} is not served on /v1/realtime: it serves transcription sessions on ${TRANSCRIPTION_MODEL}; connect with ?intent=transcription`,
    );
  }
  if (query.has('call_id')) {
    throw invalid('call_id', 'Sideband connections to calls (call_id) are not supported');
  }
}

const invalid = (param: string, message: string) => new AppError('invalid_parameter', message, { param });
