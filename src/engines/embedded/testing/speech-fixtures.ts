/**
 * Speech nobody here recorded, for the engine's specs and benchmark: the LibriVox and "cards"
 * recordings with transcripts from Debian's pocketsphinx-testdata, and sentences spoken by flite
 * voices at run time (nothing generated is committed).
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

import { resampleClip } from '../../../platform/audio/resampler';
import { parseWav, PcmClip } from '../../../platform/audio/wav';
import { FliteSynthesizer } from '../output/flite-synthesizer';

export const TESTDATA_DIR = '/usr/share/pocketsphinx/test/data';
export const SESSION_RATE = 24_000;

export interface Utterance {
  id: string;
  reference: string;
  clip: PcmClip;
}

/** Everyday requests and statements, the kind of thing said to a voice assistant. */
export const FLITE_SENTENCES = [
  'the quick brown fox jumped over the lazy dog',
  'please schedule a meeting for tomorrow morning',
  'what time is it right now',
  'turn off the lights in the kitchen',
  'i would like to order a large pizza',
  'the weather will be sunny and warm today',
  'can you tell me the way to the station',
  'my favorite color is blue',
  'we are going to the beach next weekend',
  'how much does this book cost',
  'she reads a newspaper every morning',
  'lock the front door before you leave',
  'the train leaves at half past seven',
  'he bought three apples and two oranges',
  'thank you very much for your help',
  'what is the date today',
  'please call my mother this evening',
  'the children are playing in the garden',
  'i need to buy some milk and bread',
  'good morning how are you doing',
];

export function hasTestData(): boolean {
  return existsSync(join(TESTDATA_DIR, 'librivox', 'transcription'));
}

/** Reads a Sphinx transcription file: `<s> words </s> (file-id)` per line. */
function readCorpus(dir: string, transcriptionFile: string): Utterance[] {
  if (!hasTestData()) throw new Error(`Debian's pocketsphinx-testdata is not installed (run scripts/setup.sh --test)`);
  const lines = readFileSync(join(TESTDATA_DIR, dir, transcriptionFile), 'utf8')
    .split('\n')
    .filter((l) => l.trim());
  return lines.map((line) => {
    const match = /^(.*)\(([^)]+)\)\s*$/.exec(line);
    if (!match) throw new Error(`unexpected transcription line: ${line}`);
    const id = match[2].trim();
    const reference = match[1]
      .replace(/<\/?s>/g, ' ')
      .replace(/\s+/g, ' ')
      .trim();
    return { id, reference, clip: parseWav(readFileSync(join(TESTDATA_DIR, dir, `${id}.wav`))) };
  });
}

/** Five read sentences from a LibriVox recording of Sense and Sensibility (16 kHz, 24 s). */
export function librivoxUtterances(): Utterance[] {
  return readCorpus('librivox', 'transcription');
}

/** Five spoken playing-card phrases ("ten of clubs", 16 kHz, 10 s). */
export function cardsUtterances(): Utterance[] {
  return readCorpus('cards', 'cards.transcription');
}

/** The sentences spoken by a flite voice, at flite's own rate. */
export async function fliteUtterances(voice: string, sentences: string[] = FLITE_SENTENCES): Promise<Utterance[]> {
  const flite = new FliteSynthesizer({ voice, sampleRate: null });
  const out: Utterance[] = [];
  for (const [i, reference] of sentences.entries()) {
    const speech = await flite.synthesize(reference);
    out.push({ id: `${voice}-${i}`, reference, clip: { sampleRate: speech.sampleRate, samples: speech.pcm } });
  }
  return out;
}

/** The clip as session audio (pcm16 mono 24 kHz). */
export function toSessionAudio(clip: PcmClip): Int16Array {
  return resampleClip(clip.samples, clip.sampleRate, SESSION_RATE);
}

export function silence(ms: number): Int16Array {
  return new Int16Array(Math.round((ms * SESSION_RATE) / 1000));
}

export function concatAudio(parts: Int16Array[]): Int16Array {
  const out = new Int16Array(parts.reduce((sum, p) => sum + p.length, 0));
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}

/** Utterances as one session recording: `gapMs` of silence before, between and after them. */
export function sessionRecording(
  utterances: Utterance[],
  gapMs = 1000,
): { pcm: Int16Array; speech: Array<{ startMs: number; endMs: number }> } {
  const parts: Int16Array[] = [silence(gapMs)];
  const speech: Array<{ startMs: number; endMs: number }> = [];
  let ms = gapMs;
  for (const utterance of utterances) {
    const audio = toSessionAudio(utterance.clip);
    parts.push(audio, silence(gapMs));
    speech.push({ startMs: ms, endMs: ms + audio.length / 24 });
    ms += audio.length / 24 + gapMs;
  }
  return { pcm: concatAudio(parts), speech };
}

/** Root-mean-square level of pcm16 samples. */
export function rmsLevel(samples: ArrayLike<number>): number {
  let sum = 0;
  for (let i = 0; i < samples.length; i++) sum += samples[i] * samples[i];
  return samples.length === 0 ? 0 : Math.sqrt(sum / samples.length);
}
