import { SAMPLE_RATE } from '../live/pcm.js';
import { StreamingResampler } from './resampler.js';

/** Decodes an audio file (WAV or anything the browser reads) to 24 kHz mono pcm16. */
export async function decodeAudioFile(data: ArrayBuffer, context: BaseAudioContext): Promise<Int16Array> {
  const decoded = await context.decodeAudioData(data.slice(0));
  const mono = new Float32Array(decoded.length);
  for (let c = 0; c < decoded.numberOfChannels; c++) {
    const channel = decoded.getChannelData(c);
    for (let i = 0; i < mono.length; i++) mono[i] += channel[i] / decoded.numberOfChannels;
  }
  return new StreamingResampler(decoded.sampleRate, SAMPLE_RATE).process(mono);
}

/**
 * Feeds samples to `onFrame` in 80 ms frames at real time (the service drops input far ahead of the
 * clock). Resolves when all was sent or `signal` aborts.
 */
export async function streamAtRealTime(
  pcm: Int16Array,
  onFrame: (frame: Int16Array) => void,
  signal?: AbortSignal,
): Promise<void> {
  const frame = (SAMPLE_RATE * 80) / 1000;
  const started = performance.now();
  for (let at = 0, n = 0; at < pcm.length && !signal?.aborted; at += frame, n++) {
    const due = started + n * 80;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    onFrame(pcm.slice(at, at + frame));
  }
}
