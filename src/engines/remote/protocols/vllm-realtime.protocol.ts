/**
 * vLLM's Realtime API (`/v1/realtime`, e.g. Voxtral Realtime): `session.update {model}`, then per
 * utterance a `commit` that starts generation, the audio as `append`s, and `commit {final: true}`;
 * the worker answers `transcription.delta` and, for the final commit, `transcription.done`.
 */
import { decodeJson, errorText, WorkerEvent, WorkerProtocol } from './worker-protocol';

export class VllmRealtimeProtocol implements WorkerProtocol {
  constructor(private readonly model: string) {}

  url(worker: URL): URL {
    return new URL(worker.href);
  }

  headers(apiKey: string | undefined): Record<string, string> {
    return apiKey ? { authorization: `Bearer ${apiKey}` } : {};
  }

  opening(): string[] {
    return [JSON.stringify({ type: 'session.update', model: this.model })];
  }

  begin(): string[] {
    return [COMMIT];
  }

  append(pcmBase64: string): string {
    return `{"type":"input_audio_buffer.append","audio":"${pcmBase64}"}`;
  }

  end(): string[] {
    return [FINAL_COMMIT];
  }

  decode(text: string): WorkerEvent {
    const event = decodeJson(text);
    switch (event.type) {
      case 'session.created':
        return { kind: 'created' };
      case 'transcription.delta':
        return { kind: 'delta', text: typeof event.delta === 'string' ? event.delta : '' };
      case 'transcription.done':
        return { kind: 'done', text: typeof event.text === 'string' ? event.text : '' };
      case 'error':
        return { kind: 'error', message: errorText(event) };
      default:
        return { kind: 'other' };
    }
  }
}

const COMMIT = JSON.stringify({ type: 'input_audio_buffer.commit' });
const FINAL_COMMIT = JSON.stringify({ type: 'input_audio_buffer.commit', final: true });
