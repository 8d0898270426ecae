/** Audio helpers of the scripted engine: cheap loudness and a synthetic reply voice. */
import { SAMPLE_RATE } from '../../session-core';

/**
 * Root mean square of a pcm16 frame on the int16 scale, from every 8th sample: plenty for a
 * speech/silence threshold, and an eighth of the cost (500 sessions push 6 250 frames/s).
 */
export function frameRms(frame: Buffer): number {
  let sum = 0;
  let count = 0;
  for (let offset = 0; offset + 1 < frame.length; offset += 16) {
    const value = frame.readInt16LE(offset);
    sum += value * value;
    count++;
  }
  return count === 0 ? 0 : Math.sqrt(sum / count);
}

/** A sine tone as pcm16 24 kHz; `amplitude` is 0..1 of full scale. */
export function makeTone(frequencyHz: number, durationMs: number, amplitude: number): Buffer {
  const samples = Math.round((SAMPLE_RATE * durationMs) / 1000);
  const pcm = Buffer.alloc(samples * 2);
  const peak = Math.round(32767 * Math.min(1, Math.max(0, amplitude)));
  for (let i = 0; i < samples; i++) {
    pcm.writeInt16LE(Math.round(peak * Math.sin((2 * Math.PI * frequencyHz * i) / SAMPLE_RATE)), i * 2);
  }
  return pcm;
}
