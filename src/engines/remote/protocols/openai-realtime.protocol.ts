/**
 * The OpenAI Realtime transcription protocol (`/v1/realtime?intent=transcription`), as OpenAI and
 * Continuum's own realtime socket speak it, so another Continuum instance can be the worker. Turn
 * detection is off on the worker: this side's VAD commits each utterance, the worker transcribes it.
 */
import { decodeJson, errorText, WorkerEvent, WorkerProtocol } from './worker-protocol';

export class OpenAiRealtimeProtocol implements WorkerProtocol {
  constructor(
    private readonly model: string,
    private readonly sampleRate: number,
    private readonly language: string,
  ) {}

  url(worker: URL): URL {
    const url = new URL(worker.href);
    url.searchParams.set('intent', 'transcription');
    return url;
  }

  headers(apiKey: string | undefined): Record<string, string> {
    return apiKey ? { authorization: `Bearer ${apiKey}` } : {};
  }

  opening(): string[] {
    const transcription =
      this.language === 'auto' ? { model: this.model } : { model: this.model, language: this.language };
    return [
      JSON.stringify({
        type: 'session.update',
        session: {
          type: 'transcription',
          audio: {
            input: { format: { type: 'audio/pcm', rate: this.sampleRate }, transcription, turn_detection: null },
          },
        },
      }),
    ];
  }

  begin(): string[] {
    return [];
  }

  append(pcmBase64: string): string {
    return `{"type":"input_audio_buffer.append","audio":"${pcmBase64}"}`;
  }

  end(): string[] {
    return [COMMIT];
  }

  decode(text: string): WorkerEvent {
    const event = decodeJson(text);
    switch (event.type) {
      case 'session.created':
        return { kind: 'created' };
      case 'conversation.item.input_audio_transcription.delta':
        return { kind: 'delta', text: typeof event.delta === 'string' ? event.delta : '' };
      case 'conversation.item.input_audio_transcription.completed':
        return { kind: 'done', text: typeof event.transcript === 'string' ? event.transcript : '' };
      case 'conversation.item.input_audio_transcription.failed':
      case 'error':
        return { kind: 'error', message: errorText(event) };
      default:
        return { kind: 'other' };
    }
  }
}

const COMMIT = JSON.stringify({ type: 'input_audio_buffer.commit' });
