import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from './report';

/** The built service, whether this runs from bench/ (ts-node, Jest) or dist/bench/. */
const MAIN = join(repoRoot(), 'dist', 'src', 'main.js');
const LISTENING = /Continuum listening on (https?:\/\/\S+) /;

/** True when the service is built (`npm run build`): the replica tests run the built app. */
export const serviceBuilt = (): boolean => existsSync(MAIN);

/**
 * The real service as its own process (shared by the replica test and bench) (`node dist/src/main.js`), as a pod runs it: its own event loop,
 * its own pool, killed and signalled for real. Listens on a free port (PORT=0).
 */
export class ServiceProcess {
  readonly output: string[] = [];
  private readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;

  private constructor(
    readonly name: string,
    private readonly child: ChildProcess,
    readonly baseUrl: string,
  ) {
    this.exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  }

  static async start(name: string, env: Record<string, string>, timeoutMs = 60_000): Promise<ServiceProcess> {
    const child = spawn(process.execPath, [MAIN], {
      env: { PATH: process.env.PATH ?? '', PORT: '0', HOST: '127.0.0.1', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const output: string[] = [];
    const baseUrl = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => {
        child.kill('SIGKILL');
        reject(new Error(`${name} did not start in ${timeoutMs} ms:\n${output.join('')}`));
      }, timeoutMs);
      const onData = (chunk: Buffer) => {
        output.push(chunk.toString());
        const found = LISTENING.exec(output.join(''));
        if (found) {
          clearTimeout(timer);
          resolve(found[1].replace('localhost', '127.0.0.1'));
        }
      };
      child.stdout!.on('data', onData);
      child.stderr!.on('data', (chunk: Buffer) => output.push(chunk.toString()));
      child.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`${name} exited (${code}) before listening:\n${output.join('')}`));
      });
    });
    const service = new ServiceProcess(name, child, baseUrl);
    service.output.push(...output);
    child.stdout!.on('data', (chunk: Buffer) => service.output.push(chunk.toString()));
    child.stderr!.on('data', (chunk: Buffer) => service.output.push(chunk.toString()));
    return service;
  }

  get wsUrl(): string {
    return this.baseUrl.replace(/^http/, 'ws');
  }

  get pid(): number {
    return this.child.pid!;
  }

  signal(signal: NodeJS.Signals): void {
    this.child.kill(signal);
  }

  waitExit(timeoutMs = 60_000): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
    return Promise.race([
      this.exited,
      new Promise<never>((_, reject) =>
        setTimeout(() => reject(new Error(`${this.name} did not exit in ${timeoutMs} ms`)), timeoutMs).unref(),
      ),
    ]);
  }

  /** Ends the process if it still runs (SIGKILL: cleanup after a test, not part of one). */
  async stop(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    this.child.kill('SIGKILL');
    await this.exited;
  }
}
