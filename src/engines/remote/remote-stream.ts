/**
 * One session's stream on a remote engine. Turns come from this instance's VAD (the embedded
 * engine's Silero scorer and turn detector): at a confirmed onset an utterance starts (with the
 * prefix padding before it) and its audio goes to the worker as it arrives; at the end of speech
 * (or commit()) the worker is told the utterance ended and owes its final transcript.
 *
 * Every utterance keeps its audio until its final arrives. When the worker fails (drops, stalls,
 * sends garbage or an `error`), the stream moves to another worker and re-sends the audio of every
 * unfinished utterance; when none can take it, the stream ends with a fatal `engine_unavailable`
 * error. Metering is the session's, on the frames the client sent: a replay is never billed.
 */
import { newId } from '../../platform/ids';
import { pcm16FromBuffer } from '../../platform/audio/resampler';
import { SampleHistory } from '../listening/sample-history';
import type { SileroVadModel, VadScorer } from '../listening/silero-vad';
import { VAD_FRAME_MS } from '../listening/silero-vad';
import { TurnDetector, TurnSignal } from '../listening/turn-detector';
import type { EngineEvent, EngineEventSink, EngineStream, EngineStreamConfig } from '../../session-core';
import type { EngineLogger } from '../registry/engine-kind';
import type { WorkerProtocol } from './protocols/worker-protocol';
import type { RemoteSettings } from './remote-settings';
import { Utterance } from './utterance';
import { WorkerLink } from './worker-link';
import type { Worker, WorkerPool } from './worker-pool';

const SAMPLES_PER_MS = 24;
const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;
/** Speech shorter than this is not a turn (the embedded engine's measured default). */
const MIN_SPEECH_MS = 96;

export interface RemoteStreamDeps {
  settings: RemoteSettings;
  pool: WorkerPool;
  protocol: WorkerProtocol;
  apiKey: string | undefined;
  /** Null for manual turns (turn detection off): utterances end on commit() only. */
  vad: SileroVadModel | null;
  logger: EngineLogger;
  /** Called once, when the stream is released. */
  release(stream: RemoteStream): void;
}

export class RemoteStream implements EngineStream {
  private readonly history = new SampleHistory();
  private readonly detector: TurnDetector | null;
  private readonly scorer: VadScorer | null;
  private link: WorkerLink | null = null;
  /** Unfinished utterances in order; the last one may still be receiving audio. */
  private utterances: Utterance[] = [];
  private current: Utterance | null = null;
  /** Workers that failed this stream since its last final transcript (not tried again meanwhile). */
  private readonly triedWorkers = new Set<Worker>();
  /** Moves since the last final: a long session may outlive many workers, one utterance only a few. */
  private failovers = 0;
  private lastEndMs = 0;
  private closing = false;
  private closed: Promise<void> | null = null;
  private dead = false;
  private drained: (() => void) | null = null;

  private constructor(
    private readonly config: EngineStreamConfig,
    private readonly sink: EngineEventSink,
    private readonly deps: RemoteStreamDeps,
  ) {
    const turns = config.turnDetection;
    if (turns !== null && deps.vad !== null) {
      this.detector = new TurnDetector({
        threshold: turns.threshold,
        silenceDurationMs: turns.silenceDurationMs,
        minSpeechMs: MIN_SPEECH_MS,
        splitPauseMs: turns.silenceDurationMs,
        maxUtteranceMs: 60_000,
        frameMs: VAD_FRAME_MS,
      });
      this.scorer = deps.vad.createScorer({
        frame: (probability, index, levels) => this.onVadFrame(probability, index, levels),
        caughtUp: () => undefined,
        error: (error) => this.deps.logger.error(`stream ${config.sessionId}: VAD failed: ${String(error)}`),
      });
    } else {
      this.detector = null;
      this.scorer = null;
    }
  }

  /** Opens the stream on the first worker that answers; null when none can take it. */
  static async open(
    config: EngineStreamConfig,
    sink: EngineEventSink,
    deps: RemoteStreamDeps,
  ): Promise<RemoteStream | null> {
    const stream = new RemoteStream(config, sink, deps);
    if (await stream.connect()) return stream;
    stream.scorer?.stop();
    return null;
  }

  private get receivedMs(): number {
    return Math.floor(this.history.end / SAMPLES_PER_MS);
  }

  pushAudio(frame: Buffer): void {
    if (this.closing || this.dead) return;
    const samples = samplesOf(frame);
    this.history.append(samples);
    if (this.detector === null && this.current === null) this.startUtterance(this.receivedMs - frame.length / 48);
    else if (this.current !== null) this.addAudio(this.current, frame);
    this.scorer?.push(samples);
    const keepMs = this.deps.settings.prefixPaddingMs + 2000;
    this.history.discardBefore((this.receivedMs - keepMs) * SAMPLES_PER_MS);
  }

  commit(): void {
    if (this.closing || this.dead) return;
    const endMs = this.receivedMs;
    if (this.current && this.detector?.speaking)
      this.emit({ type: 'speech_stopped', itemId: this.current.id, audioEndMs: endMs });
    this.forgetTurn();
    this.endUtterance(endMs);
  }

  clear(): void {
    if (this.closing || this.dead) return;
    this.forgetTurn();
    if (this.current) {
      this.current.discarded = true;
      this.endUtterance(this.receivedMs);
    }
  }

  interrupt(): void {
    // Transcription only: there is no output to stop.
  }

  /** Ends the open utterance and waits (bounded by the stall timeout) for the finals still owed. */
  close(): Promise<void> {
    this.closed ??= this.finish();
    return this.closed;
  }

  private async finish(): Promise<void> {
    if (this.scorer) await this.scorer.idle();
    this.closing = true;
    this.scorer?.stop();
    if (this.current && this.detector?.speaking)
      this.emit({ type: 'speech_stopped', itemId: this.current.id, audioEndMs: this.receivedMs });
    if (this.current) this.endUtterance(this.receivedMs);
    if (this.owed() && !this.dead) {
      await new Promise<void>((resolve) => {
        this.drained = resolve;
        setTimeout(resolve, this.deps.settings.stallTimeoutMs * (this.deps.settings.maxFailovers + 1)).unref();
      });
    }
    this.shutDown();
  }

  /** Called by the engine's sweep: a worker that owes a final and is silent too long has stalled. */
  checkStall(nowMs: number): void {
    const link = this.link;
    if (link === null || !link.ready || !this.utterances.some((u) => u.ended)) return;
    if (nowMs - link.lastEventAt > this.deps.settings.stallTimeoutMs)
      link.fail(`stalled: no event for ${this.deps.settings.stallTimeoutMs} ms`);
  }

  private owed(): boolean {
    return this.utterances.some((u) => !u.discarded);
  }

  private onVadFrame(probability: number, index: number, levels: number[]): void {
    if (this.detector === null || this.closing) return;
    for (const signal of this.detector.frame(probability, index * VAD_FRAME_MS, levels)) this.onSignal(signal);
  }

  private forgetTurn(): void {
    for (const signal of this.detector?.reset() ?? []) this.onSignal(signal);
  }

  private onSignal(signal: TurnSignal): void {
    if (signal.type === 'suspect') {
      this.emit({ type: 'speech_suspected' });
    } else if (signal.type === 'ruled_out') {
      this.emit({ type: 'speech_ruled_out' });
    } else if (signal.type === 'speech_start') {
      if (this.current) return;
      const utterance = this.startUtterance(signal.onsetMs - this.deps.settings.prefixPaddingMs);
      this.emit({ type: 'speech_started', itemId: utterance.id, audioStartMs: utterance.startMs });
    } else if (signal.type === 'speech_end' && this.current) {
      this.emit({ type: 'speech_stopped', itemId: this.current.id, audioEndMs: signal.speechEndMs });
      this.endUtterance(signal.speechEndMs);
    }
  }

  private startUtterance(fromMs: number): Utterance {
    const startMs = Math.max(0, Math.round(fromMs), this.lastEndMs);
    const utterance = new Utterance(newId('item'), startMs);
    this.current = utterance;
    this.utterances.push(utterance);
    this.link?.begin();
    const held = this.history.read(startMs * SAMPLES_PER_MS, this.history.end);
    if (held.length > 0) this.addAudio(utterance, Buffer.from(held.buffer, held.byteOffset, held.byteLength));
    return utterance;
  }

  private addAudio(utterance: Utterance, pcm: Buffer): void {
    utterance.audio.push(pcm);
    this.link?.append(pcm);
  }

  private endUtterance(endMs: number): void {
    const utterance = this.current;
    if (utterance === null) return;
    this.current = null;
    utterance.endMs = Math.max(endMs, utterance.startMs);
    this.lastEndMs = Math.max(this.lastEndMs, utterance.endMs);
    if (utterance.audio.length === 0) {
      // Nothing to transcribe: the final is empty, no worker needed.
      this.utterances = this.utterances.filter((u) => u !== utterance);
      if (!utterance.discarded) this.emit(utterance.done(''));
      return;
    }
    this.link?.end();
  }

  /** Worker events are about the oldest unfinished utterance (one generation at a time, in order). */
  private onWorkerEvent(event: { kind: 'delta' | 'done'; text: string }): void {
    const utterance = this.utterances[0];
    if (utterance === undefined) return;
    if (event.kind === 'delta') {
      if (!utterance.discarded) {
        const delta = utterance.delta(event.text, this.receivedMs);
        if (delta) this.emit(delta);
      }
      return;
    }
    this.utterances.shift();
    this.failovers = 0;
    this.triedWorkers.clear();
    if (this.link) this.triedWorkers.add(this.link.worker);
    if (!utterance.discarded) this.emit(utterance.done(event.text));
    if (this.closing && !this.owed()) this.drained?.();
  }

  /** Tries workers until one greets; false when none is left to try. */
  private async connect(): Promise<boolean> {
    const { pool, settings, protocol, apiKey } = this.deps;
    for (;;) {
      const worker = pool.acquire(this.triedWorkers);
      if (worker === null) return false;
      this.triedWorkers.add(worker);
      const link: WorkerLink = new WorkerLink(
        worker,
        { protocol, apiKey, sampleRate: settings.sampleRate, connectTimeoutMs: settings.connectTimeoutMs },
        {
          event: (event) => this.onWorkerEvent(event),
          failed: (reason) => void this.onLinkFailed(link, reason),
        },
      );
      try {
        await link.greeted;
      } catch (error) {
        pool.release(worker);
        pool.failed(worker, (error as Error).message);
        continue;
      }
      pool.succeeded(worker);
      if (this.dead || (this.closing && !this.owed())) {
        link.close();
        pool.release(worker);
        return true;
      }
      this.link = link;
      this.replay(link);
      return true;
    }
  }

  /** Re-sends every unfinished utterance (none on the first connect) to a new worker. */
  private replay(link: WorkerLink): void {
    for (const utterance of this.utterances) {
      utterance.restart();
      link.begin();
      for (const pcm of utterance.audio) link.append(pcm);
      if (utterance.ended) link.end();
    }
  }

  private async onLinkFailed(link: WorkerLink, reason: string): Promise<void> {
    if (this.link !== link) return;
    this.link = null;
    const { pool, logger, settings } = this.deps;
    pool.release(link.worker);
    pool.failed(link.worker, reason);
    if (this.dead) return;
    logger.warn(`stream ${this.config.sessionId}: worker ${link.worker.url.host} failed: ${reason}`);
    if (this.closing && !this.owed()) return;
    // A worker that drops an idle stream (nothing owed) costs no failover: nothing is lost.
    if (this.utterances.length > 0) this.failovers++;
    if (this.failovers <= settings.maxFailovers && (await this.connect())) return;
    this.dead = true;
    this.emit({
      type: 'error',
      code: 'engine_unavailable',
      message: 'the transcription worker failed and no other worker could take the stream over',
      fatal: true,
    });
    this.drained?.();
  }

  private shutDown(): void {
    if (this.link) {
      this.link.close();
      this.deps.pool.release(this.link.worker);
      this.link = null;
    }
    this.dead = true;
    this.deps.release(this);
  }

  private emit(event: EngineEvent): void {
    try {
      this.sink(event);
    } catch (error) {
      this.deps.logger.error(`stream ${this.config.sessionId}: event sink threw: ${String(error)}`);
    }
  }
}

/** Frames may be kept (see InputFramer): an aligned little-endian frame is viewed, not copied. */
function samplesOf(frame: Buffer): Int16Array {
  return LITTLE_ENDIAN && frame.byteOffset % 2 === 0
    ? new Int16Array(frame.buffer, frame.byteOffset, frame.length >> 1)
    : pcm16FromBuffer(frame);
}
