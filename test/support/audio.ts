/** Test audio: pcm16 mono 24 kHz, the only format the sockets take. */
export const RATE = 24_000;
export const FRAME_BYTES = 3840; // 80 ms

/**
 * Jest runs each file in a vm context, where every global lookup (`Math`) in a hot loop goes
 * through the context's interceptor: 25 times slower than in node (6 ms against 0.25 ms for 400 ms
 * of tone), enough to stall real-time test clients. Hence the local bindings and a plain typed array.
 */
const { round, sin, PI } = Math;

export function tone(ms: number, hz = 440, amplitude = 8000): Buffer {
  const pcm = new Int16Array(round((RATE * ms) / 1000));
  const step = (2 * PI * hz) / RATE;
  for (let i = 0; i < pcm.length; i++) pcm[i] = round(amplitude * sin(step * i));
  return Buffer.from(pcm.buffer, pcm.byteOffset, pcm.byteLength);
}

export function silence(ms: number): Buffer {
  return Buffer.alloc(Math.round((RATE * ms) / 1000) * 2);
}

/** Splits audio into chunks of `ms` (the last may be shorter). */
export function chunks(audio: Buffer, ms: number): Buffer[] {
  const size = Math.round((RATE * ms) / 1000) * 2;
  const out: Buffer[] = [];
  for (let at = 0; at < audio.length; at += size) out.push(audio.subarray(at, Math.min(audio.length, at + size)));
  return out;
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Root mean square of pcm16 samples: 0 for silence. */
export function rms(pcm: Buffer): number {
  let sum = 0;
  const n = Math.floor(pcm.length / 2);
  for (let i = 0; i < n; i++) sum += pcm.readInt16LE(i * 2) ** 2;
  return n ? Math.sqrt(sum / n) : 0;
}
