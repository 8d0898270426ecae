/**
 * The model names a batch request may give, all served by the service's transcription model: its own
 * id, the names OpenAI's and Deepgram's clients send (`whisper-1`, `gpt-4o-transcribe`, `nova-3`…, so
 * LiveKit's plugins work unchanged) and the operator's aliases (REALTIME_MODEL_ALIASES) that name it.
 */
import { AppError } from '../../platform/errors/app-error';
import { TRANSCRIPTION_MODEL } from '../../engines';

const OPENAI_NAMES = /^(?:whisper-1|gpt-(?:4o-(?:mini-)?)?(?:live-)?transcribe(?:-[a-z0-9-]+)?|gpt-realtime-whisper)$/;
const DEEPGRAM_NAMES = /^(?:nova|enhanced|base|whisper)(?:-[a-z0-9]+)*$/;

export function transcriptionModelOf(
  requested: string | undefined,
  aliases: ReadonlyMap<string, string>,
  param = 'model',
): string {
  if (requested === undefined || requested === '' || requested === TRANSCRIPTION_MODEL) return TRANSCRIPTION_MODEL;
  if (OPENAI_NAMES.test(requested) || DEEPGRAM_NAMES.test(requested)) return TRANSCRIPTION_MODEL;
  if (aliases.get(requested) === TRANSCRIPTION_MODEL) return TRANSCRIPTION_MODEL;
  throw new AppError(
    'invalid_parameter',
    `Unknown transcription model ${JSON.stringify(requested.slice(0, 100))}: use ${TRANSCRIPTION_MODEL}, an OpenAI transcription model name or a Deepgram model name`,
    { param },
  );
}
