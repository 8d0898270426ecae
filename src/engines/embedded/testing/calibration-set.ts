/**
 * The end-of-turn calibration set: labelled turns listed in test/fixtures/end-of-turn-calibration.json
 * (text, voice, lead-in silence, pause, and whether the turn is tuned on or held out), spoken at run
 * time by several synthesisers (flite's awb, rms and slt; espeak-ng's en-us and en-gb; Debian has no
 * mbrola binary, so espeak-ng's mbrola voices cannot be used).
 *
 * A paused turn ("set an alarm for | six in the morning") is spoken as one sentence with a comma at
 * the pause, so that the synthesiser gives the first part non-final prosody (a real hesitation does
 * not sound like a sentence end); the phrase-break gap the comma makes is found by its energy (the
 * longest quiet run inside the speech, near where the comma falls) and set to `pauseMs` of silence.
 * The label is where the speech starts and ends (its last voiced sample) and where the pause is.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { parseWav } from '../../../platform/audio/wav';
import { FliteSynthesizer } from '../output/flite-synthesizer';
import { concatAudio, silence, toSessionAudio } from './speech-fixtures';
import { speechSpan } from './speech-timing';
import type { LabelledTurn, TurnKind } from './turn-set';

const FIXTURE = 'test/fixtures/end-of-turn-calibration.json';

export type CalibrationSplit = 'tune' | 'held_out';

export interface CalibrationSpec {
  id: string;
  /** Index of the sentence: a sentence's turns are all in one split. */
  sentence: number;
  kind: TurnKind;
  /** "|" marks the mid-sentence pause. */
  text: string;
  /** `flite:<voice>` or `espeak-ng:<voice>`. */
  voice: string;
  leadMs: number;
  pauseMs?: number;
  split: CalibrationSplit;
}

export interface CalibrationTurn extends LabelledTurn {
  split: CalibrationSplit;
  leadMs: number;
}

const SAMPLES_PER_MS = 24;
/** The quiet run taken for the comma's gap: at least this long (stop closures are shorter). */
const MIN_GAP_MS = 50;

export function calibrationSpecs(): CalibrationSpec[] {
  // The fixture sits in the repository's test/; compiled code runs from dist/, one level deeper.
  const candidates = [join(__dirname, '../../../..', FIXTURE), join(__dirname, '../../../../..', FIXTURE)];
  for (const candidate of candidates) {
    try {
      return (JSON.parse(readFileSync(candidate, 'utf8')) as { turns: CalibrationSpec[] }).turns;
    } catch {
      // next candidate
    }
  }
  throw new Error(`end-of-turn calibration fixture not found (${candidates.join(', ')})`);
}

/** Synthesises and labels the turns (all of them, or those `filter` keeps). */
export async function buildCalibrationSet(
  options: { filter?: (spec: CalibrationSpec) => boolean; trailMs?: number } = {},
): Promise<CalibrationTurn[]> {
  const trailMs = options.trailMs ?? 1500;
  const specs = calibrationSpecs().filter(options.filter ?? (() => true));
  const flites = new Map<string, FliteSynthesizer>();
  const out: CalibrationTurn[] = [];
  for (const spec of specs) {
    const paused = spec.text.includes('|');
    const spoken = paused ? spec.text.replace(/\s*\|\s*/, ', ') : spec.text;
    const audio = await synthesize(spec.voice, spoken, flites);
    const span = speechSpan(audio);
    let speech = audio.subarray(span.startMs * SAMPLES_PER_MS, span.endMs * SAMPLES_PER_MS);
    const pauses: Array<{ startMs: number; endMs: number }> = [];
    if (paused) {
      const fraction = spec.text.indexOf('|') / spec.text.replace('|', '').length;
      const gap = findGap(speech, fraction);
      if (gap === null) throw new Error(`${spec.id}: no phrase break found for the pause`);
      const pauseMs = spec.pauseMs ?? 400;
      speech = concatAudio([
        speech.subarray(0, gap.startMs * SAMPLES_PER_MS),
        silence(pauseMs),
        speech.subarray(gap.endMs * SAMPLES_PER_MS),
      ]);
      pauses.push({ startMs: spec.leadMs + gap.startMs, endMs: spec.leadMs + gap.startMs + pauseMs });
    }
    const speechMs = speech.length / SAMPLES_PER_MS;
    out.push({
      id: spec.id,
      kind: spec.kind,
      voice: spec.voice,
      text: spec.text.replace(/\s*\|\s*/, ' '),
      pauseMs: spec.pauseMs ?? 0,
      pcm: concatAudio([silence(spec.leadMs), speech, silence(trailMs)]),
      speechStartMs: spec.leadMs,
      speechEndMs: spec.leadMs + speechMs,
      pauses,
      split: spec.split,
      leadMs: spec.leadMs,
    });
  }
  return out;
}

/**
 * The phrase break: the longest run of 10 ms windows 30 dB below the speech's peak, at least
 * MIN_GAP_MS long, within a third of the speech of where the comma falls by characters.
 */
export function findGap(speech: Int16Array, fraction: number): { startMs: number; endMs: number } | null {
  const window = 10 * SAMPLES_PER_MS;
  const levels: number[] = [];
  for (let i = 0; i + window <= speech.length; i += window) {
    let sum = 0;
    for (let k = i; k < i + window; k++) sum += speech[k] * speech[k];
    levels.push(Math.sqrt(sum / window));
  }
  const floor = Math.max(1, ...levels) * 10 ** (-30 / 20);
  const expected = fraction * levels.length;
  let best: { start: number; end: number } | null = null;
  for (let i = 0; i < levels.length;) {
    if (levels[i] >= floor) {
      i++;
      continue;
    }
    let j = i;
    while (j < levels.length && levels[j] < floor) j++;
    const near = Math.abs((i + j) / 2 - expected) <= levels.length / 3;
    if (near && (j - i) * 10 >= MIN_GAP_MS && (best === null || j - i > best.end - best.start))
      best = { start: i, end: j };
    i = j;
  }
  return best === null ? null : { startMs: best.start * 10, endMs: best.end * 10 };
}

async function synthesize(voice: string, text: string, flites: Map<string, FliteSynthesizer>): Promise<Int16Array> {
  const [engine, name] = voice.split(':');
  if (engine === 'flite') {
    let flite = flites.get(name);
    if (!flite) flites.set(name, (flite = new FliteSynthesizer({ voice: name, sampleRate: null })));
    const speech = await flite.synthesize(text);
    return toSessionAudio({ sampleRate: speech.sampleRate, samples: speech.pcm });
  }
  if (engine === 'espeak-ng') {
    const dir = await mkdtemp(join(tmpdir(), 'espeak-'));
    try {
      const file = join(dir, 'out.wav');
      await run('espeak-ng', ['-v', name, '-w', file, text]);
      const clip = parseWav(await readFile(file));
      return toSessionAudio(clip);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }
  throw new Error(`unknown synthesiser ${voice}`);
}

function run(binary: string, args: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(binary, args, { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', (error) =>
      reject(new Error(`${binary} failed to start (${error.message}); scripts/setup.sh --test installs it`)),
    );
    child.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`${binary} exited ${code}: ${stderr}`))));
  });
}
