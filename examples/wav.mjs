// Reads a 16-bit PCM mono WAV file: its sample rate and its samples as pcm16 little-endian bytes.
import { readFileSync } from 'node:fs';

export function readWav(path) {
  const file = readFileSync(path);
  if (file.toString('ascii', 0, 4) !== 'RIFF' || file.toString('ascii', 8, 12) !== 'WAVE') {
    throw new Error(`${path} is not a WAV file`);
  }
  let sampleRate = 0;
  for (let at = 12; at + 8 <= file.length;) {
    const id = file.toString('ascii', at, at + 4);
    const size = file.readUInt32LE(at + 4);
    if (id === 'fmt ') {
      const [format, channels, bits] = [
        file.readUInt16LE(at + 8),
        file.readUInt16LE(at + 10),
        file.readUInt16LE(at + 22),
      ];
      if (format !== 1 || channels !== 1 || bits !== 16) throw new Error(`${path}: need 16-bit PCM mono`);
      sampleRate = file.readUInt32LE(at + 12);
    }
    if (id === 'data') return { sampleRate, pcm: file.subarray(at + 8, at + 8 + size) };
    at += 8 + size + (size % 2);
  }
  throw new Error(`${path} has no audio data`);
}

/** Splits audio into chunks of `ms` milliseconds and hands them over in real time, as a microphone would. */
export async function streamInRealTime(pcm, sampleRate, ms, send) {
  const bytes = Math.round((sampleRate * ms) / 1000) * 2;
  for (let at = 0; at < pcm.length; at += bytes) {
    send(pcm.subarray(at, at + bytes));
    await new Promise((resolve) => setTimeout(resolve, ms));
  }
}
