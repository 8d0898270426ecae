/**
 * Resampler benchmark: CPU per 80 ms frame for the conversions the service makes (24 → 16 kHz for the
 * VAD, 16 → 24 kHz for flite's speech, 8/16/48 → 24 kHz for Deepgram clients, 24 → 16 kHz for remote
 * workers), streamed frame by frame as sessions send them.
 *
 *   npm run build && node dist/bench/resampler.bench.js [--frames 4000]
 *
 * Best of five runs of process.cpuUsage() over the frames: on a shared machine the best is the run
 * least disturbed by other work. Results: bench/results/resampler.json.
 */
import { Resampler } from '../src/platform/audio/resampler';
import { round, writeReport } from './support/report';

const FRAME_MS = 80;
/** One session's frame must cost well under 1 % of its 80 ms on one core. */
const TARGET_US_PER_FRAME = 200;

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};

const CONVERSIONS: Array<[number, number]> = [
  [24_000, 16_000],
  [16_000, 24_000],
  [8_000, 24_000],
  [48_000, 24_000],
];

function speechLike(rate: number, frames: number): Buffer {
  const samples = Math.round((rate * FRAME_MS) / 1000) * frames;
  const pcm = Buffer.alloc(samples * 2);
  for (let i = 0; i < samples; i++) {
    const t = i / rate;
    const v = 6000 * Math.sin(2 * Math.PI * 220 * t) + 3000 * Math.sin(2 * Math.PI * 1800 * t) + 500 * Math.sin(i);
    pcm.writeInt16LE(Math.round(v), i * 2);
  }
  return pcm;
}

/** Microseconds of CPU per frame, best of five runs. */
function cpuPerFrame(frames: Buffer[], run: (frame: Buffer) => unknown): number {
  for (const frame of frames.slice(0, 200)) run(frame); // warm-up: let the JIT settle
  let best = Infinity;
  for (let attempt = 0; attempt < 5; attempt++) {
    const before = process.cpuUsage();
    for (const frame of frames) run(frame);
    const used = process.cpuUsage(before);
    best = Math.min(best, (used.user + used.system) / frames.length);
  }
  return round(best, 2);
}

function main(): void {
  const frameCount = arg('frames', 4000);
  const results: Record<string, { pcm16: number; samples: number }> = {};
  for (const [from, to] of CONVERSIONS) {
    const pcm = speechLike(from, frameCount);
    const bytes = Math.round((from * FRAME_MS) / 1000) * 2;
    const frames = Array.from({ length: frameCount }, (_, i) => pcm.subarray(i * bytes, (i + 1) * bytes));
    const samples = frames.map((frame) => new Int16Array(frame.buffer, frame.byteOffset, frame.length >> 1));
    const pcmResampler = new Resampler(from, to);
    const sampleResampler = new Resampler(from, to);
    let k = 0;
    results[`${from / 1000}k→${to / 1000}k`] = {
      pcm16: cpuPerFrame(frames, (frame) => pcmResampler.processPcm16(frame)),
      samples: cpuPerFrame(frames, () => sampleResampler.process(samples[k++ % samples.length])),
    };
  }
  const worst = Math.max(...Object.values(results).flatMap((r) => [r.pcm16, r.samples]));
  const headline = Object.entries(results)
    .map(([name, r]) => `${name} ${r.pcm16}/${r.samples} µs`)
    .join(', ');
  const path = writeReport({
    name: 'resampler',
    headline: `CPU per 80 ms frame (pcm16/samples): ${headline}`,
    results: { frameMs: FRAME_MS, frames: frameCount, usPerFrame: results },
    targets: { usPerFrame: TARGET_US_PER_FRAME },
    met: worst <= TARGET_US_PER_FRAME,
  });
  process.stdout.write(`${JSON.stringify(results, null, 2)}\nwrote ${path}\n`);
}

main();
