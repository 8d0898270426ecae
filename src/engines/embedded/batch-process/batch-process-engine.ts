/**
 * Batch (file) recognition kept apart from live sessions: a SpeechEngine whose streams run in a child
 * process with an embedded engine of its own, started at a lower OS priority (nice). Decoding batch
 * pieces on the service's own libuv pool put live sessions' decodes in the same first-come queue (a
 * live first partial went from 1.9 s to 15 s on a loaded 2-core machine while files were transcribed);
 * in the child they have their own threads, and the kernel runs the service's first when both want a
 * core. Its streams are its own (`maxStreams` decoders, loaded in the child), not the live engine's.
 *
 * The child starts with the first stream and leaves after IDLE_EXIT_MS without one, giving its
 * decoders' memory back. If it dies, its open streams end with a fatal error; the next open starts a
 * new one.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import {
  EngineCapacityError,
  type EngineCapacity,
  type EngineEvent,
  type EngineEventSink,
  type EngineStream,
  type EngineStreamConfig,
  type SpeechEngine,
} from '../../../session-core';
import type { EngineLogger } from '../engine-options';
import type { FromWorker, ToWorker, WorkerOptions } from './batch-protocol';

export interface BatchProcessOptions {
  maxStreams: number;
  /** 0 (the service's own priority) to 19 (only idle cores). */
  nice: number;
  /** A child without a stream for this long exits. */
  idleExitMs?: number;
  readyTimeoutMs?: number;
  logger?: EngineLogger;
}

const IDLE_EXIT_MS = 60_000;
const READY_TIMEOUT_MS = 60_000;

interface OpenStream {
  sink: EngineEventSink;
  closed: () => void;
}

export class BatchProcessEngine implements SpeechEngine {
  readonly name = 'embedded-batch';
  private child: ChildProcess | null = null;
  private ready: Promise<ChildProcess> | null = null;
  private readonly opening = new Map<
    number,
    { resolve: () => void; reject: (error: Error) => void; stream: OpenStream }
  >();
  private readonly open_ = new Map<number, OpenStream>();
  private nextId = 1;
  private inUse = 0;
  private idleTimer: NodeJS.Timeout | null = null;
  private stopped = false;

  constructor(private readonly options: BatchProcessOptions) {}

  capacity(): EngineCapacity {
    return { inUse: this.inUse, max: this.options.maxStreams };
  }

  hasCapacity(): boolean {
    return !this.stopped && this.inUse < this.options.maxStreams;
  }

  /** The child's pid, while one runs (tests, the bench). */
  get pid(): number | null {
    return this.child?.pid ?? null;
  }

  async open(config: EngineStreamConfig, sink: EngineEventSink): Promise<EngineStream> {
    if (this.stopped) throw new Error('the speech engine is shut down');
    if (config.type !== 'transcription') throw new Error('the batch process transcribes only');
    if (this.inUse >= this.options.maxStreams) throw new EngineCapacityError(2000);
    this.inUse++;
    this.stopIdleTimer();
    const id = this.nextId++;
    let closed: () => void = () => undefined;
    const done = new Promise<void>((resolve) => (closed = resolve));
    const stream: OpenStream = { sink, closed: () => closed() };
    try {
      const child = await this.started();
      await new Promise<void>((resolve, reject) => {
        this.opening.set(id, { resolve, reject, stream });
        this.post(child, { t: 'open', id, config });
      });
    } catch (error) {
      this.opening.delete(id);
      this.released();
      throw error;
    }
    this.open_.set(id, stream);
    return new ProcessStream(
      id,
      (message) => this.child && this.post(this.child, message),
      done,
      () => {
        this.open_.delete(id);
        this.released();
      },
    );
  }

  async shutdown(): Promise<void> {
    this.stopped = true;
    this.stopIdleTimer();
    this.stop();
  }

  private started(): Promise<ChildProcess> {
    this.ready ??= this.spawn().catch((error: unknown) => {
      this.ready = null;
      throw error;
    });
    return this.ready;
  }

  private spawn(): Promise<ChildProcess> {
    const { entry, execArgv } = workerEntry();
    const workerOptions: WorkerOptions = { maxStreams: this.options.maxStreams, nice: this.options.nice };
    const child = fork(entry, [JSON.stringify(workerOptions)], {
      execArgv,
      // Only what it needs: the service's secrets (database URL, keys, upstream credentials) stay out of it.
      env: childEnv(),
      serialization: 'advanced',
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    this.child = child;
    child.on('message', (message: FromWorker) => this.receive(message));
    return new Promise<ChildProcess>((resolve, reject) => {
      const timer = setTimeout(() => {
        child.kill('SIGKILL');
        reject(new Error('the batch recognition process did not start in time'));
      }, this.options.readyTimeoutMs ?? READY_TIMEOUT_MS);
      const onReady = (message: FromWorker) => {
        if (message.t !== 'ready') return;
        clearTimeout(timer);
        child.off('message', onReady);
        resolve(child);
      };
      child.on('message', onReady);
      child.once('exit', (code, signal) => {
        clearTimeout(timer);
        reject(new Error(`the batch recognition process exited (${signal ?? code}) before it was ready`));
        this.exited(child, code, signal);
      });
    });
  }

  private receive(message: FromWorker): void {
    switch (message.t) {
      case 'opened': {
        const pending = this.opening.get(message.id);
        this.opening.delete(message.id);
        pending?.resolve();
        return;
      }
      case 'open_failed': {
        const pending = this.opening.get(message.id);
        this.opening.delete(message.id);
        pending?.reject(message.capacity ? new EngineCapacityError(message.retryAfterMs) : new Error(message.message));
        return;
      }
      case 'event':
        this.deliver(message.id, message.event);
        return;
      case 'closed':
        this.open_.get(message.id)?.closed();
        return;
      default:
        return;
    }
  }

  /** The child is gone: every stream it held ends, as a remote stream whose worker died does. */
  private exited(child: ChildProcess, code: number | null, signal: NodeJS.Signals | null): void {
    if (this.child !== child) return;
    this.child = null;
    this.ready = null;
    if (!this.stopped && (this.open_.size > 0 || this.opening.size > 0))
      this.options.logger?.error?.(`batch recognition process exited (${signal ?? code}) with streams open`);
    const failure = new Error('the batch recognition process exited');
    for (const [, pending] of this.opening) pending.reject(failure);
    this.opening.clear();
    for (const [id, stream] of this.open_) {
      this.deliver(id, { type: 'error', code: 'engine_unavailable', message: failure.message, fatal: true });
      stream.closed();
    }
  }

  private deliver(id: number, event: EngineEvent): void {
    const stream = this.open_.get(id) ?? this.opening.get(id)?.stream;
    try {
      stream?.sink(event);
    } catch (error) {
      this.options.logger?.error?.(`batch stream ${id}: event sink threw: ${(error as Error).message}`);
    }
  }

  private post(child: ChildProcess, message: ToWorker): void {
    if (child.connected) child.send(message);
  }

  private released(): void {
    this.inUse--;
    if (this.inUse > 0 || this.stopped) return;
    this.idleTimer = setTimeout(() => this.stop(), this.options.idleExitMs ?? IDLE_EXIT_MS);
    this.idleTimer.unref();
  }

  private stopIdleTimer(): void {
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = null;
  }

  /** Lets the child go: it shuts its engine down and exits when its channel closes. */
  private stop(): void {
    const child = this.child;
    if (!child) return;
    if (child.connected) child.disconnect();
    // A child that hangs in its shutdown is not waited for.
    setTimeout(() => child.exitCode === null && child.signalCode === null && child.kill('SIGKILL'), 5000).unref();
  }
}

class ProcessStream implements EngineStream {
  private pending: Buffer[] = [];
  private flushing = false;
  private closing: Promise<void> | null = null;

  constructor(
    private readonly id: number,
    private readonly post: (message: ToWorker) => void,
    private readonly done: Promise<void>,
    private readonly released: () => void,
  ) {}

  /** Frames pushed in one turn of the loop cross as one message. */
  pushAudio(frame: Buffer): void {
    if (this.closing) return;
    this.pending.push(frame);
    if (this.flushing) return;
    this.flushing = true;
    setImmediate(() => this.flush());
  }

  commit(): void {
    this.flush();
    this.post({ t: 'commit', id: this.id });
  }

  clear(): void {
    this.flush();
    this.post({ t: 'clear', id: this.id });
  }

  interrupt(): void {
    // Transcription streams have no output to stop.
  }

  close(): Promise<void> {
    this.closing ??= (async () => {
      this.flush();
      this.post({ t: 'close', id: this.id });
      await this.done;
      this.released();
    })();
    return this.closing;
  }

  private flush(): void {
    this.flushing = false;
    if (this.pending.length === 0) return;
    const pcm = Buffer.concat(this.pending);
    this.pending = [];
    this.post({ t: 'audio', id: this.id, pcm });
  }
}

/** The compiled worker beside this file, or (under ts-jest, from sources) the TypeScript one through ts-node. */
function workerEntry(): { entry: string; execArgv: string[] } {
  const js = join(__dirname, 'batch-worker.js');
  if (existsSync(js)) return { entry: js, execArgv: [] };
  return { entry: join(__dirname, 'batch-worker.ts'), execArgv: ['-r', 'ts-node/register/transpile-only'] };
}

const CHILD_ENV = ['PATH', 'LANG', 'LC_ALL', 'TZ', 'TMPDIR', 'UV_THREADPOOL_SIZE', 'NODE_OPTIONS'];

function childEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  // eslint-disable-next-line no-restricted-properties -- the child's environment, not configuration
  const own = process.env;
  for (const name of CHILD_ENV) if (own[name] !== undefined) env[name] = own[name];
  return env;
}
