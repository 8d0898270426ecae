/**
 * Offline probe (no sockets): can the speech's prosody at the last voiced sample tell a sentence end
 * from a mid-sentence break? Synthesises the end-of-turn calibration set, tracks F0 and level with
 * the pitch module (src/engines/embedded/testing/pitch.ts) on the 24 kHz audio the listener receives, using
 * only audio up to each point, and prints candidate features at the true last voiced sample before
 * each pause (paused turns: "break") and at the end of every turn ("end"), per voice and split.
 * A threshold is chosen on the tune part only and applied to the held-out part.
 *
 *   npm run build && node dist/bench/prosody-probe.js [--json out.json]
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { buildCalibrationSet, CalibrationTurn } from '../src/engines/embedded/testing/calibration-set';
import { estimatePitch, semitones } from '../src/engines/embedded/testing/pitch';
import { SileroVadModel, VAD_FRAME_MS } from '../src/engines/listening/silero-vad';
import { TurnDetector } from '../src/engines/listening/turn-detector';
import { COMPLETE_TURN_CAP_MS } from '../src/session-core/end-of-turn/turn-tracker';

const SAMPLES_PER_MS = 24;
const HOP_MS = 10;
const WINDOW_MS = 40;

interface Analysis {
  /** End of the analysis window (ms on the turn's timeline). */
  t: number;
  f0: number | null;
  db: number;
}

function track(turn: CalibrationTurn): Analysis[] {
  const out: Analysis[] = [];
  const totalMs = turn.pcm.length / SAMPLES_PER_MS;
  for (let t = WINDOW_MS; t <= totalMs; t += HOP_MS) {
    const window = turn.pcm.subarray((t - WINDOW_MS) * SAMPLES_PER_MS, t * SAMPLES_PER_MS);
    const estimate = estimatePitch(window, { sampleRate: 24_000 });
    out.push({ t, f0: estimate.f0Hz, db: 20 * Math.log10(Math.max(1, estimate.rms)) });
  }
  return out;
}

type Features = Record<string, number>;

function median(values: number[]): number {
  if (values.length === 0) return Number.NaN;
  const s = [...values].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
}

function quantile(values: number[], q: number): number {
  if (values.length === 0) return Number.NaN;
  const s = [...values].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.round(q * (s.length - 1))))];
}

function slope(points: Array<[number, number]>): number {
  if (points.length < 3) return Number.NaN;
  const mx = points.reduce((a, p) => a + p[0], 0) / points.length;
  const my = points.reduce((a, p) => a + p[1], 0) / points.length;
  let num = 0;
  let den = 0;
  for (const [x, y] of points) {
    num += (x - mx) * (y - my);
    den += (x - mx) ** 2;
  }
  return den > 0 ? (num / den) * 1000 : Number.NaN; // per second
}

/** Features at voice end `endMs`, from analyses of audio in [startMs, endMs] only. */
function featuresAt(all: Analysis[], startMs: number, endMs: number): Features {
  const span = all.filter((a) => a.t >= startMs + WINDOW_MS / 2 && a.t <= endMs);
  const peakDb = Math.max(...span.map((a) => a.db));
  // Voiced: periodic and within 30 dB of the loudest window so far.
  const voiced = span.filter((a) => a.f0 !== null && a.db > peakDb - 30) as Array<Analysis & { f0: number }>;
  const f0s = voiced.map((a) => a.f0);
  const ref = median(f0s);
  const st = (a: { f0: number }): number => semitones(a.f0, ref);
  const lastVoicedT = voiced.length ? voiced[voiced.length - 1].t : Number.NaN;
  const within = (ms: number): Array<Analysis & { f0: number }> => voiced.filter((a) => a.t > endMs - ms);
  const f: Features = {};
  f.ratio200 = median(within(200).map((a) => a.f0)) / ref;
  f.end100st = median(within(100).map(st));
  f.last3st = median(voiced.slice(-3).map(st));
  for (const ms of [150, 200, 300]) f[`slope${ms}`] = slope(within(ms).map((a) => [a.t, st(a)]));
  // Position of the end in the turn's range: 0 at its 10th percentile, 1 at its 90th.
  const lo = quantile(
    f0s.map((v) => semitones(v, ref)),
    0.1,
  );
  const hi = quantile(
    f0s.map((v) => semitones(v, ref)),
    0.9,
  );
  f.range = (median(voiced.slice(-3).map(st)) - lo) / Math.max(0.5, hi - lo);
  f.aboveP10st = median(voiced.slice(-3).map(st)) - lo;
  // Final lengthening: the last voiced run against the turn's median voiced run.
  const runs: number[] = [];
  let run = 0;
  for (let i = 0; i < span.length; i++) {
    const v = span[i].f0 !== null && span[i].db > peakDb - 30;
    if (v) run += HOP_MS;
    if ((!v || i === span.length - 1) && run > 0) {
      runs.push(run);
      run = 0;
    }
  }
  f.lastRunRel = runs.length ? runs[runs.length - 1] / median(runs) : Number.NaN;
  // Energy at the end.
  const dbs = span.map((a) => a.db);
  f.end100db =
    median(span.filter((a) => a.t > endMs - 100).map((a) => a.db)) - median(dbs.filter((d) => d > peakDb - 30));
  f.dbSlope200 = slope(span.filter((a) => a.t > endMs - 200).map((a) => [a.t, a.db]));
  f.voicedGapMs = endMs - lastVoicedT;
  // The same, anchored at the last voiced (periodic) analysis rather than the level's end: a final
  // unvoiced consonant ("lights") leaves no pitch in the last 100–300 ms.
  const beforeVoiced = (ms: number): Array<Analysis & { f0: number }> => voiced.filter((a) => a.t > lastVoicedT - ms);
  for (const ms of [100, 150, 250]) f[`vslope${ms}`] = slope(beforeVoiced(ms).map((a) => [a.t, st(a)]));
  f.vend100st = median(beforeVoiced(100).map(st));
  f.vend60st = median(beforeVoiced(60).map(st));
  return f;
}

/**
 * The voice ends the listener itself would report: Silero VAD and the turn detector as the listener
 * configures them when the session ends turns (threshold 0.5, 96 ms minimum speech, 160 ms split
 * pause). For each labelled point, the detector's last voice end 160 ms into the silence after it.
 */
/**
 * The voice ends the listener itself would report: Silero VAD and the turn detector as the listener
 * configures them when the session ends turns (threshold 0.5, 96 ms minimum speech, 160 ms split
 * pause). For each labelled point, the detector's last voice end 160 ms into the silence after it,
 * and the longest silence the listener reports before the speech resumes (what a cap must exceed
 * to end the turn there).
 */
async function detectorVoiceEnds(
  vad: SileroVadModel,
  turn: CalibrationTurn,
  labels: number[],
): Promise<Array<{ voiceEndMs: number; maxSilenceMs: number }>> {
  const detector = new TurnDetector({
    threshold: 0.5,
    silenceDurationMs: null,
    minSpeechMs: 96,
    splitPauseMs: 160,
    maxUtteranceMs: 10_000,
    frameMs: VAD_FRAME_MS,
  });
  const voiceEndAt: Array<number | null> = [];
  const scorer = vad.createScorer({
    frame: (probability, index, levels) => {
      detector.frame(probability, index * VAD_FRAME_MS, levels);
      voiceEndAt[index] = detector.lastVoiceEndMs;
    },
    caughtUp: () => undefined,
    error: (error) => {
      throw error;
    },
  });
  const chunk = 80 * SAMPLES_PER_MS;
  for (let i = 0; i < turn.pcm.length; i += chunk) scorer.push(turn.pcm.subarray(i, i + chunk));
  await scorer.idle();
  scorer.stop();
  return labels.map((label) => {
    const frame = Math.min(Math.floor((label + 160) / VAD_FRAME_MS), voiceEndAt.length - 1);
    const voiceEndMs = voiceEndAt[frame] ?? Number.NaN;
    let maxSilenceMs = Number.NaN;
    for (let k = frame; k < voiceEndAt.length && voiceEndAt[k] === voiceEndMs; k++) {
      maxSilenceMs = (k + 1) * VAD_FRAME_MS - voiceEndMs;
    }
    return { voiceEndMs, maxSilenceMs };
  });
}

interface Point {
  id: string;
  voice: string;
  split: 'tune' | 'held_out';
  /** "break": the last voiced sample before a paused turn's pause; "end": a turn's last voiced sample. */
  kind: 'end' | 'break';
  /** A complete turn's end (flagging it costs latency); false for a paused turn's break or final end. */
  complete: boolean;
  pauseMs: number;
  features: Features;
}

/** A rule "feature ≥ threshold (or ≤) says mid-phrase", or a logistic score over several features. */
interface Cue {
  name: string;
  score: (p: Point) => number;
}

/** The bench's last run (bench/results/end-of-turn.json): which paused turns the model ended in their pause. */
interface BenchRow {
  id: string;
  split: string;
  pauseMs: number;
  modelEarly: number;
  transcript: string;
}

/**
 * The most a bounded extension of the complete-turn cap (350 ms of silence now) could grow to: the
 * bench's client sees the end up to ~110 ms after the cap (VAD frame, 80 ms chunk, processing), so a
 * misjudged complete turn stays within the 600 ms max only with a cap of at most about 490 ms. A
 * pause is saved only where the silence the listener reports inside it stays below that.
 */
const EXTENDED_CAP_MS = 490;
/** Not a shift: the turn detector's own voice end. */
const DETECTOR = 1;

async function main(): Promise<void> {
  // 0: the labelled last voiced sample; -32: a VAD frame earlier; DETECTOR: the turn detector's own.
  const shifts = [0, -32, DETECTOR];
  const turns = await buildCalibrationSet({ trailMs: 300 });
  const vad = await SileroVadModel.load();
  const pointsAt = new Map<number, Point[]>(shifts.map((shift) => [shift, []]));
  const offsets: number[] = [];
  const pauseSilences = new Map<number, number[]>();
  const maxSilence = new Map<string, number>();
  for (const turn of turns) {
    const analyses = track(turn);
    const start = turn.speechStartMs;
    const base = { id: turn.id, voice: turn.voice, split: turn.split };
    const labels = [...turn.pauses.map((pause) => pause.startMs), turn.speechEndMs];
    const detected = await detectorVoiceEnds(vad, turn, labels);
    detected.forEach((d, i) => offsets.push(d.voiceEndMs - labels[i]));
    turn.pauses.forEach((_, i) => {
      const list = pauseSilences.get(turn.pauseMs) ?? [];
      list.push(detected[i].maxSilenceMs);
      pauseSilences.set(turn.pauseMs, list);
      maxSilence.set(turn.id, detected[i].maxSilenceMs);
    });
    for (const shift of shifts) {
      const points = pointsAt.get(shift) as Point[];
      labels.forEach((label, i) => {
        const at = shift === DETECTOR ? detected[i].voiceEndMs : label + shift;
        const features = featuresAt(analyses, start, at);
        const last = i === labels.length - 1;
        points.push({
          ...base,
          kind: last ? 'end' : 'break',
          complete: last && turn.pauses.length === 0,
          pauseMs: last ? 0 : turn.pauseMs,
          features,
        });
      });
    }
  }
  await vad.release();
  console.log(
    `The detector's voice end minus the label's: p10 ${fmt(quantile(offsets, 0.1))}, p50 ${fmt(quantile(offsets, 0.5))}, p90 ${fmt(quantile(offsets, 0.9))} ms (${offsets.filter((o) => !Number.isFinite(o)).length} not found)\n`,
  );
  const points = pointsAt.get(0) as Point[];
  const json = process.argv.indexOf('--json');
  if (json > 0) writeFileSync(process.argv[json + 1], JSON.stringify(points, null, 1));

  console.log(
    'The longest silence the listener reports inside a pause (voice end to the frame before resumed speech):',
  );
  for (const [pause, list] of [...pauseSilences].sort((a, b) => a[0] - b[0])) {
    const range = `min ${fmt(Math.min(...list))}, p50 ${fmt(quantile(list, 0.5))}, max ${fmt(Math.max(...list))} ms`;
    console.log(`  ${pause} ms pauses: ${range}`);
  }
  console.log('');

  const voices = [...new Set(points.map((p) => p.voice))].sort();
  const groups: Array<[string, (p: Point) => boolean]> = [
    ...voices.map((v): [string, (p: Point) => boolean] => [v, (p) => p.voice === v]),
    ['espeak-ng (all)', (p) => p.voice.startsWith('espeak-ng')],
    ['flite (all)', (p) => p.voice.startsWith('flite')],
  ];
  const names = Object.keys(points[0].features);

  console.log('1. Separation: AUC = P(feature at a break > feature at an end); 0.5 none, 1 or 0 perfect.');
  console.log(`   Features at the true last voiced sample, audio up to it only. tune | held_out per voice.\n`);
  console.log(`${'feature'.padEnd(12)} ${groups.map(([g]) => g.replace('espeak-ng:', 'es:').padStart(15)).join(' ')}`);
  for (const name of names) {
    const cells = groups.map(([, keep]) => {
      const a = ['tune', 'held_out'].map((split) => {
        const sel = points.filter((p) => keep(p) && p.split === split);
        return fmt(auc(valuesOf(sel, 'break', name), valuesOf(sel, 'end', name)));
      });
      return a.join(' | ').padStart(15);
    });
    console.log(`${name.padEnd(12)} ${cells.join(' ')}`);
  }

  console.log('\n2. Median (p10–p90) of the best-separating features, per voice and split: end vs break');
  for (const name of ['ratio200', 'range', 'aboveP10st', 'vslope100', 'vslope250', 'dbSlope200']) {
    console.log(`  ${name}`);
    for (const [group, keep] of groups.slice(0, voices.length)) {
      const row = ['tune', 'held_out'].map((split) => {
        const sel = points.filter((p) => keep(p) && p.split === split);
        const d = (kind: 'end' | 'break'): string => {
          const v = valuesOf(sel, kind, name);
          return `${fmt(quantile(v, 0.5))} (${fmt(quantile(v, 0.1))}–${fmt(quantile(v, 0.9))})`;
        };
        return `${split}: end ${d('end')} break ${d('break')}`;
      });
      console.log(`    ${group.padEnd(16)} ${row.join('   ')}`);
    }
  }

  // 3. Cues chosen on the tune part only.
  const cues: Cue[] = [];
  for (const name of names) {
    for (const sign of [1, -1])
      cues.push({ name: `${sign > 0 ? '' : '-'}${name}`, score: (p) => sign * p.features[name] });
  }
  cues.push(logisticCue(points.filter((p) => p.split === 'tune')));
  const bench = benchFalseEnds();
  console.log('\n3. Thresholds chosen on tune only (most tune breaks flagged with at most 1 of 24 tune complete');
  console.log('   turns and 4 of 45 tune ends flagged), applied to held out. "flagged" = the cue says mid-phrase.');
  console.log(
    `   The bench's held-out false ends on pauses (${bench.length}): a flagged one whose pause's silence stays`,
  );
  console.log(`   below ${EXTENDED_CAP_MS} ms is one a bounded cap extension could save.\n`);
  const chosen: Array<{ cue: Cue; threshold: number; brk: number }> = [];
  for (const cue of cues) {
    const threshold = chooseThreshold(
      points.filter((p) => p.split === 'tune'),
      cue,
    );
    if (threshold === null) continue;
    chosen.push({ cue, threshold: threshold.value, brk: threshold.breaks });
  }
  chosen.sort((a, b) => b.brk - a.brk);
  for (const { cue, threshold } of chosen.slice(0, 12)) {
    console.log(`  ${cue.name} ≥ ${fmt(threshold)}`);
    for (const shift of shifts) {
      const at = pointsAt.get(shift) as Point[];
      const flagged = (p: Point): boolean => Number.isFinite(cue.score(p)) && cue.score(p) >= threshold;
      const cells = ['tune', 'held_out'].map((split) => {
        const per = groups.slice(0, voices.length).map(([group, keep]) => {
          const sel = at.filter((p) => keep(p) && p.split === split);
          const breaks = sel.filter((p) => p.kind === 'break');
          const complete = sel.filter((p) => p.complete);
          return `${group.replace('espeak-ng:', 'es:').replace('flite:', '')} ${breaks.filter(flagged).length}/${breaks.length} ${complete.filter(flagged).length}/${complete.length}`;
        });
        return `${split}: ${per.join(', ')}`;
      });
      console.log(
        `    voice end ${shift === 0 ? 'as labelled' : shift === DETECTOR ? 'as the turn detector has it' : `${shift} ms`}; breaks / complete turns flagged per voice:`,
      );
      for (const cell of cells) console.log(`      ${cell}`);
      if (shift !== -32) {
        const hits = bench.filter((row) => {
          const point = at.find((p) => p.id === row.id && p.kind === 'break');
          return point !== undefined && flagged(point);
        });
        const below = (cap: number): number => hits.filter((row) => (maxSilence.get(row.id) ?? Infinity) < cap).length;
        console.log(
          `      bench's held-out false ends flagged: ${hits.length}/${bench.length} (${hits.map((r) => `${r.id} ${r.pauseMs}`).join(', ')}); pause's silence below the ${COMPLETE_TURN_CAP_MS} ms cap: ${below(COMPLETE_TURN_CAP_MS)}, below ${EXTENDED_CAP_MS} ms: ${below(EXTENDED_CAP_MS)}`,
        );
      }
    }
  }
  const bridgeable = bench.filter((row) => (maxSilence.get(row.id) ?? Infinity) < EXTENDED_CAP_MS);
  console.log(
    `\n4. Of the bench's ${bench.length} held-out false ends, ${bridgeable.length} have a pause whose silence stays below ${EXTENDED_CAP_MS} ms: ${bridgeable.map((r) => `${r.id} ${r.pauseMs} (${fmt(maxSilence.get(r.id) ?? Number.NaN)} ms, "${r.transcript}")`).join('; ')}`,
  );
}

function valuesOf(points: Point[], kind: 'end' | 'break', name: string): number[] {
  return points
    .filter((p) => p.kind === kind)
    .map((p) => p.features[name])
    .filter(Number.isFinite);
}

function chooseThreshold(tune: Point[], cue: Cue): { value: number; breaks: number } | null {
  const scored = tune.map((p) => ({ p, s: cue.score(p) })).filter((x) => Number.isFinite(x.s));
  let best: { value: number; breaks: number } | null = null;
  for (const value of [...new Set(scored.map((x) => x.s))].sort((a, b) => a - b)) {
    const flagged = scored.filter((x) => x.s >= value);
    const complete = flagged.filter((x) => x.p.complete).length;
    const ends = flagged.filter((x) => x.p.kind === 'end').length;
    const breaks = flagged.filter((x) => x.p.kind === 'break').length;
    if (complete <= 1 && ends <= 4 && breaks > 0 && (best === null || breaks > best.breaks)) best = { value, breaks };
  }
  return best;
}

/** A logistic score over several features, fitted (L2, gradient descent) on the tune part only. */
function logisticCue(tune: Point[]): Cue {
  const names = ['range', 'vslope100', 'vslope250', 'dbSlope200', 'end100db', 'lastRunRel', 'vend100st'];
  const raw = (p: Point): number[] => names.map((n) => (Number.isFinite(p.features[n]) ? p.features[n] : 0));
  const xs = tune.map(raw);
  const mean = names.map((_, j) => xs.reduce((a, x) => a + x[j], 0) / xs.length);
  const sd = names.map((_, j) => Math.sqrt(xs.reduce((a, x) => a + (x[j] - mean[j]) ** 2, 0) / xs.length) || 1);
  const norm = (x: number[]): number[] => x.map((v, j) => (v - mean[j]) / sd[j]);
  const ys = tune.map((p) => (p.kind === 'break' ? 1 : 0));
  const w = names.map(() => 0);
  let b = 0;
  for (let it = 0; it < 5000; it++) {
    const gw = names.map(() => 0);
    let gb = 0;
    xs.forEach((x, i) => {
      const z = norm(x);
      const pr = 1 / (1 + Math.exp(-(z.reduce((a, v, j) => a + v * w[j], 0) + b)));
      z.forEach((v, j) => (gw[j] += ((pr - ys[i]) * v) / xs.length));
      gb += (pr - ys[i]) / xs.length;
    });
    w.forEach((_, j) => (w[j] -= 0.1 * (gw[j] + w[j] / xs.length)));
    b -= 0.1 * gb;
  }
  const weights = names.map((n, j) => `${n} ${w[j].toFixed(2)}`).join(', ');
  return { name: `logistic(${weights})`, score: (p) => norm(raw(p)).reduce((a, v, j) => a + v * w[j], 0) + b };
}

function benchFalseEnds(): BenchRow[] {
  // bench/ under ts-node, dist/bench/ compiled.
  for (const root of [join(__dirname, '..'), join(__dirname, '../..')]) {
    try {
      const file = join(root, 'bench/results/end-of-turn.json');
      const rows = (JSON.parse(readFileSync(file, 'utf8')) as { results: { perTurn: BenchRow[] } }).results.perTurn;
      return rows.filter((r) => r.split === 'held_out' && r.pauseMs > 0 && r.modelEarly > 0);
    } catch {
      // next root
    }
  }
  return [];
}

function fmt(v: number): string {
  return Number.isFinite(v) ? v.toFixed(2) : 'nan';
}

/** Probability that a break's value exceeds an end's (0.5: no separation; 0 or 1: perfect). */
function auc(breaks: number[], ends: number[]): number {
  let wins = 0;
  for (const b of breaks) for (const e of ends) wins += b > e ? 1 : b === e ? 0.5 : 0;
  return breaks.length && ends.length ? wins / (breaks.length * ends.length) : Number.NaN;
}

void main();
