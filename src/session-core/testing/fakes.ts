/**
 * Recording fakes of the runtime's ports and of an engine, for unit tests of the core and of
 * dialects. Each records what it was asked, and lets a test make it slow or make it fail.
 */
import type {
  EngineCapacity,
  EngineEventSink,
  EngineStream,
  EngineStreamConfig,
  SpeechEngine,
} from '../engine/engine.port';
import type {
  ActivationResult,
  EventRenderer,
  MeterPort,
  SessionActivation,
  SessionClosing,
  SessionStorePort,
  TransportPort,
} from '../runtime/ports';
import type { ServerEvent } from '../model/session.events';
import type { MeterBatch } from '../model/session.types';

export class FakeTransport implements TransportPort {
  readonly frames: (string | Buffer)[] = [];
  closed: { code: number; reason: string } | null = null;
  bufferedAmount = 0;
  failSends = false;

  send(frame: string | Buffer): void {
    if (this.failSends) throw new Error('socket is gone');
    this.frames.push(frame);
  }

  close(code: number, reason: string): void {
    this.closed = { code, reason };
  }

  /** Text frames parsed as JSON. */
  get events(): Record<string, unknown>[] {
    return this.frames.flatMap((f) => (typeof f === 'string' ? [JSON.parse(f) as Record<string, unknown>] : []));
  }

  types(): string[] {
    return this.events.map((e) => String(e.type));
  }
}

/** Renders neutral events as JSON with audio replaced by its length: keeps runtime tests dialect-free. */
export class JsonRenderer implements EventRenderer {
  render(event: ServerEvent): string | Buffer | null {
    if (event.type === 'output_audio') return JSON.stringify({ ...event, pcm: event.pcm.length });
    return JSON.stringify(event);
  }
}

/** A promise a test resolves or rejects when it wants. */
export class Gate<T> {
  readonly promise: Promise<T>;
  resolve!: (value: T) => void;
  reject!: (error: Error) => void;

  constructor() {
    this.promise = new Promise<T>((resolve, reject) => {
      this.resolve = resolve;
      this.reject = reject;
    });
  }
}

export class FakeStore implements SessionStorePort {
  readonly log: string[] = [];
  readonly activations: { sessionId: string; activation: SessionActivation }[] = [];
  readonly closings: { sessionId: string; closing: SessionClosing }[] = [];
  nextActivation: ActivationResult | Gate<ActivationResult> | Error = { ok: true };

  async activate(sessionId: string, activation: SessionActivation): Promise<ActivationResult> {
    this.activations.push({ sessionId, activation });
    this.log.push('activate');
    const next = this.nextActivation;
    if (next instanceof Error) throw next;
    return next instanceof Gate ? next.promise : next;
  }

  async close(sessionId: string, closing: SessionClosing): Promise<void> {
    this.log.push(`close:${closing.reason}`);
    this.closings.push({ sessionId, closing });
  }
}

export class FakeMeter implements MeterPort {
  readonly written: MeterBatch[] = [];
  readonly log: string[];
  /** Number of upcoming writes that fail. */
  failures = 0;
  /** When set, each write waits for this gate (to observe serialisation). */
  gate: Gate<void> | null = null;
  inFlight = 0;
  maxInFlight = 0;

  constructor(log: string[] = []) {
    this.log = log;
  }

  async record(_sessionId: string, batch: MeterBatch): Promise<void> {
    this.inFlight++;
    this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
    try {
      if (this.gate !== null) await this.gate.promise;
      if (this.failures > 0) {
        this.failures--;
        throw new Error('database unavailable');
      }
      this.written.push(batch);
      this.log.push(`meter:${batch.seq}`);
    } finally {
      this.inFlight--;
    }
  }
}

export class FakeStream implements EngineStream {
  readonly pushed: Buffer[] = [];
  readonly calls: string[] = [];
  closeGate: Gate<void> | null = null;
  throwOnPush = false;

  constructor(
    readonly config: EngineStreamConfig,
    readonly sink: EngineEventSink,
  ) {}

  pushAudio(frame: Buffer): void {
    if (this.throwOnPush) throw new Error('engine crashed');
    this.pushed.push(frame);
  }
  commit(): void {
    this.calls.push('commit');
  }
  clear(): void {
    this.calls.push('clear');
  }
  interrupt(): void {
    this.calls.push('interrupt');
  }
  close(): Promise<void> {
    this.calls.push('close');
    return this.closeGate?.promise ?? Promise.resolve();
  }
}

export class FakeEngine implements SpeechEngine {
  readonly name = 'fake';
  readonly streams: FakeStream[] = [];
  openError: Error | null = null;
  openGate: Gate<void> | null = null;

  async open(config: EngineStreamConfig, sink: EngineEventSink): Promise<EngineStream> {
    if (this.openGate !== null) await this.openGate.promise;
    if (this.openError !== null) throw this.openError;
    const stream = new FakeStream(config, sink);
    this.streams.push(stream);
    return stream;
  }
  capacity(): EngineCapacity {
    return { inUse: this.streams.length, max: 10 };
  }
  hasCapacity(): boolean {
    return true;
  }
  async shutdown(): Promise<void> {}

  get last(): FakeStream {
    const stream = this.streams.at(-1);
    if (stream === undefined) throw new Error('no stream was opened');
    return stream;
  }
}
