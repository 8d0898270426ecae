/**
 * Audio files for the batch specs and benchmark, made at run time (nothing binary is committed):
 * flite sentences with pauses between them, written as WAV and converted by ffmpeg into every
 * container the endpoints promise.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { encodeWav } from '../../../platform/audio/wav';
import {
  concatAudio,
  fliteUtterances,
  silence,
  toSessionAudio,
} from '../../../engines/embedded/testing/speech-fixtures';

export interface SpokenFile {
  /** pcm16 mono 24 kHz. */
  pcm: Int16Array;
  sentences: string[];
  durationMs: number;
}

/** The sentences spoken by flite's `awb`, 700 ms of silence between them, repeated to at least `minMs`. */
export async function spokenSentences(sentences: string[], minMs = 0): Promise<SpokenFile> {
  const utterances = await fliteUtterances('awb', sentences);
  const parts: Int16Array[] = [silence(400)];
  const said: string[] = [];
  let ms = 400;
  do {
    for (const u of utterances) {
      const audio = toSessionAudio(u.clip);
      parts.push(audio, silence(700));
      said.push(u.reference);
      ms += audio.length / 24 + 700;
    }
  } while (ms < minMs);
  const pcm = concatAudio(parts);
  return { pcm, sentences: said, durationMs: pcm.length / 24 };
}

export const CONVERSIONS = {
  'wav-24k-mono': { ext: 'wav', args: [] as string[] },
  'wav-8k-stereo': { ext: 'wav', args: ['-ar', '8000', '-ac', '2'] },
  'wav-44k1-stereo': { ext: 'wav', args: ['-ar', '44100', '-ac', '2'] },
  mp3: { ext: 'mp3', args: ['-c:a', 'libmp3lame', '-b:a', '64k'] },
  flac: { ext: 'flac', args: ['-c:a', 'flac'] },
  'ogg-opus': { ext: 'ogg', args: ['-c:a', 'libopus', '-b:a', '32k'] },
  'webm-opus': { ext: 'webm', args: ['-c:a', 'libopus', '-b:a', '32k'] },
  m4a: { ext: 'm4a', args: ['-c:a', 'aac', '-b:a', '64k'] },
} as const;

export type Conversion = keyof typeof CONVERSIONS;

/** Writes the audio as a 24 kHz WAV and converts it with ffmpeg; returns the file's bytes. */
export function audioFile(pcm: Int16Array, conversion: Conversion, dir: string): Buffer {
  const wav = join(dir, 'source.wav');
  writeFileSync(wav, encodeWav({ sampleRate: 24_000, samples: pcm }));
  if (conversion === 'wav-24k-mono') return readFileSync(wav);
  const { ext, args } = CONVERSIONS[conversion];
  const out = join(dir, `${conversion}.${ext}`);
  execFileSync('ffmpeg', ['-y', '-loglevel', 'error', '-i', wav, ...args, out]);
  return readFileSync(out);
}
