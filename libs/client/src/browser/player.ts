import { SAMPLE_RATE } from '../live/pcm.js';
import { pcm16ToFloat } from './resampler.js';

export interface PlayerOptions {
  /** An OfflineAudioContext works too (rendering tests). */
  context?: BaseAudioContext;
  /** Audio held back before playback starts, to ride out network jitter. */
  jitterMs?: number;
}

/**
 * Gap-free playback of 24 kHz pcm16 chunks: each chunk is scheduled to start exactly where the last
 * one ends on the audio clock; after an underrun, playback restarts `jitterMs` ahead. `flush()` cuts
 * everything at once (barge-in). All output goes through `analyser` (level meters, tests).
 */
export class PcmPlayer {
  readonly context: BaseAudioContext;
  readonly analyser: AnalyserNode;
  private readonly jitter: number;
  private readonly scheduled = new Set<AudioBufferSourceNode>();
  private nextStart = 0;

  constructor(options: PlayerOptions = {}) {
    this.context = options.context ?? new AudioContext();
    this.jitter = (options.jitterMs ?? 100) / 1000;
    this.analyser = this.context.createAnalyser();
    this.analyser.fftSize = 2048;
    this.analyser.connect(this.context.destination);
  }

  /** True while audio is scheduled or sounding. */
  get playing(): boolean {
    return this.scheduled.size > 0;
  }

  /** Seconds of audio queued ahead of the audio clock. */
  get bufferedSeconds(): number {
    return this.playing ? Math.max(0, this.nextStart - this.context.currentTime) : 0;
  }

  enqueue(pcm: Int16Array): void {
    if (!pcm.length) return;
    const buffer = this.context.createBuffer(1, pcm.length, SAMPLE_RATE);
    buffer.copyToChannel(pcm16ToFloat(pcm) as Float32Array<ArrayBuffer>, 0);
    const source = this.context.createBufferSource();
    source.buffer = buffer;
    source.connect(this.analyser);
    const now = this.context.currentTime;
    if (!this.playing || this.nextStart < now) this.nextStart = now + this.jitter; // idle or underrun
    source.start(this.nextStart);
    this.nextStart += buffer.duration;
    this.scheduled.add(source);
    source.onended = () => {
      this.scheduled.delete(source);
      source.disconnect();
    };
  }

  /** Stops what plays and drops what is queued, now. */
  flush(): void {
    for (const source of this.scheduled) {
      source.onended = null;
      source.stop();
      source.disconnect();
    }
    this.scheduled.clear();
    this.nextStart = 0;
  }

  /** Peak absolute level (0..1) of what the output plays right now. */
  level(): number {
    const data = new Float32Array(this.analyser.fftSize);
    this.analyser.getFloatTimeDomainData(data);
    let peak = 0;
    for (const v of data) peak = Math.max(peak, Math.abs(v));
    return peak;
  }

  async close(): Promise<void> {
    this.flush();
    if (this.context instanceof AudioContext) await this.context.close();
  }
}
