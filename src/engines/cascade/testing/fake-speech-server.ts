/**
 * A fake OpenAI-compatible speech server, written from the published protocol
 * (`POST /v1/audio/speech` with `{model, input, voice, response_format, speed}`): with
 * `response_format: "pcm"` the body streams raw 24 kHz 16-bit mono little-endian samples as they
 * are "synthesised". The voice is a tone, `msPerChar` of it per input character, sent in chunks of
 * `chunkMs` every `chunkEveryMs` (faster than real time when smaller), so a test can predict the
 * audio of every sentence and catch a request in the middle of its audio.
 */
import { encodeWav } from '../../../platform/audio/wav';
import { pause, RecordingServer, type RecordedRequest } from './recording-server';

export interface SpeechPlan {
  msPerChar: number;
  chunkMs: number;
  chunkEveryMs: number;
  /** Answer this status (with an OpenAI error body) instead of audio. */
  failWith?: number;
  /** Cut chunks at odd byte counts (a sample split across chunks). */
  oddChunks?: boolean;
  /** Ignore response_format and answer a WAV file, as a server without pcm support would. */
  wav?: boolean;
}

export const SPEECH_RATE = 24_000;

export function speechDurationMs(input: string, msPerChar: number): number {
  return input.length * msPerChar;
}

export async function startFakeSpeechServer(plan: (request: RecordedRequest) => SpeechPlan): Promise<RecordingServer> {
  return RecordingServer.start(async (request, res) => {
    const body = request.body as { model?: unknown; input?: unknown; voice?: unknown; response_format?: unknown };
    const invalid =
      request.method !== 'POST' ||
      request.path !== '/v1/audio/speech' ||
      typeof body?.model !== 'string' ||
      typeof body.input !== 'string' ||
      typeof body.voice !== 'string' ||
      body.response_format !== 'pcm';
    const chosen = invalid ? null : plan(request);
    if (chosen === null || chosen.failWith !== undefined) {
      res.writeHead(chosen?.failWith ?? 400, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: 'speech failed', type: 'server_error', code: null } }));
      return;
    }
    const samples = Math.round((speechDurationMs(body.input as string, chosen.msPerChar) * SPEECH_RATE) / 1000);
    const pcm = Buffer.alloc(samples * 2);
    for (let i = 0; i < samples; i++)
      pcm.writeInt16LE(Math.round(6000 * Math.sin((2 * Math.PI * 300 * i) / SPEECH_RATE)), i * 2);
    if (chosen.wav) {
      res.writeHead(200, { 'content-type': 'audio/wav' });
      res.end(
        encodeWav({ sampleRate: SPEECH_RATE, samples: new Int16Array(pcm.buffer, pcm.byteOffset, pcm.length >> 1) }),
      );
      return;
    }
    res.writeHead(200, { 'content-type': 'audio/pcm' });
    const chunkBytes = Math.round((chosen.chunkMs * SPEECH_RATE) / 1000) * 2 + (chosen.oddChunks ? 1 : 0);
    for (let at = 0; at < pcm.length; at += chunkBytes) {
      if (res.destroyed) return;
      res.write(pcm.subarray(at, Math.min(pcm.length, at + chunkBytes)));
      if (at + chunkBytes < pcm.length) await pause(res, chosen.chunkEveryMs);
    }
    res.end();
  });
}
