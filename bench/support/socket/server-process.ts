/** Starts a benchmark server child (service or relay) and talks to it over IPC. */
import { fork, type ChildProcess } from 'node:child_process';
import { HEAP_NODE_OPTIONS } from '../../../src/platform/runtime/heap-tuning';
import { closeSync, openSync } from 'node:fs';
import { join } from 'node:path';
import type { ServerKind, ServerReady, ServerStats, StatsRequest } from './child-protocol';

export interface ServerProcessOptions {
  /** Passed to the child (the service's database URL). */
  args: string[];
  /** Where the child's stdout (the service's log) goes. */
  logFile: string;
  /** e.g. --cpu-prof for the service. */
  execArgv?: string[];
}

export class ServerProcess {
  private nextId = 0;
  private readonly waiting = new Map<number, (stats: ServerStats) => void>();

  private constructor(
    readonly kind: ServerKind,
    private readonly child: ChildProcess,
    readonly ready: ServerReady,
  ) {
    child.on('message', (message: ServerStats) => {
      if (message?.type !== 'stats') return;
      this.waiting.get(message.id)?.(message);
      this.waiting.delete(message.id);
    });
  }

  static async start(kind: ServerKind, options: ServerProcessOptions): Promise<ServerProcess> {
    const log = openSync(options.logFile, 'a');
    const child = fork(join(__dirname, `${kind}.child.js`), options.args, {
      stdio: ['ignore', log, 'inherit', 'ipc'],
      // --expose-gc: memory per session is measured after a full collection (child-protocol.ts).
      // The service starts with the node options production starts it with (npm start, the image).
      execArgv: ['--expose-gc', ...(kind === 'service' ? HEAP_NODE_OPTIONS : []), ...(options.execArgv ?? [])],
    });
    closeSync(log); // the child holds its own descriptor
    const ready = await new Promise<ServerReady>((resolve, reject) => {
      const onExit = (code: number | null) => reject(new Error(`the ${kind} exited (${code}) before it was ready`));
      child.once('exit', onExit);
      child.on('message', (message: ServerReady) => {
        if (message?.type !== 'ready') return;
        child.off('exit', onExit);
        resolve(message);
      });
    });
    return new ServerProcess(kind, child, ready);
  }

  get pid(): number {
    return this.child.pid!;
  }

  get url(): string {
    return `ws://127.0.0.1:${this.ready.port}${this.ready.path}`;
  }

  stats(action: StatsRequest['action'], path?: string): Promise<ServerStats> {
    const id = ++this.nextId;
    const request: StatsRequest = { type: 'stats', id, action, path };
    return new Promise((resolve) => {
      this.waiting.set(id, resolve);
      this.child.send(request);
    });
  }

  /** SIGTERM, then SIGKILL if it has not gone within `graceMs`. */
  async stop(graceMs = 15_000): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => this.child.once('exit', () => resolve()));
    this.child.kill('SIGTERM');
    const timer = setTimeout(() => this.child.kill('SIGKILL'), graceMs);
    await exited;
    clearTimeout(timer);
  }
}
