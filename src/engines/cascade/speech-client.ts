/**
 * Synthesises one piece of text with an OpenAI-compatible `POST /v1/audio/speech` (speaches,
 * Kokoro-FastAPI, LocalAI, openedai-speech) as `response_format: "pcm"`: raw 24 kHz 16-bit mono
 * little-endian samples, streamed as they are synthesised. Chunks are re-cut on whole samples.
 */
import { postStream, UpstreamError } from './upstream-http';

export interface SpeechClientOptions {
  /** The full endpoint, e.g. http://kokoro:8880/v1/audio/speech. */
  url: string;
  model: string;
  voice: string;
  speed: number;
  timeoutMs: number;
  /** Read for every request (a rotated key file is picked up); null sends no authorization. */
  apiKey: () => string | null;
}

export class SpeechClient {
  constructor(private readonly options: SpeechClientOptions) {}

  /** Yields pcm16 chunks (an even number of bytes each) as the server sends them. */
  async *stream(text: string, signal: AbortSignal): AsyncGenerator<Buffer, void, undefined> {
    const { url, model, voice, speed, timeoutMs, apiKey } = this.options;
    const body = { model, input: text, voice, response_format: 'pcm', speed };
    let carry: Buffer | null = null;
    let first = true;
    for await (const chunk of postStream({ upstream: 'speech', url, body, apiKey: apiKey(), timeoutMs, signal })) {
      let bytes = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
      // A server that ignores response_format would have its WAV header played as a click.
      if (first && bytes.subarray(0, 4).toString('latin1') === 'RIFF')
        throw new UpstreamError('speech', 'protocol', 'the speech server sent WAV, not raw pcm');
      first = false;
      if (carry) {
        bytes = Buffer.concat([carry, bytes]);
        carry = null;
      }
      const whole = bytes.length & ~1;
      if (whole < bytes.length) carry = Buffer.from(bytes.subarray(whole));
      if (whole > 0) yield bytes.subarray(0, whole);
    }
    if (carry) throw new UpstreamError('speech', 'protocol', 'the audio ended in the middle of a sample');
  }
}
