/**
 * The workers a remote engine may use: a fixed list of URLs, or each URL's host name resolved to
 * all its addresses (a Kubernetes headless Service), refreshed periodically. A stream takes a slot
 * on the least-loaded healthy worker; a worker that fails (connect error, death, stall, garbage) is
 * taken out and tried again after an exponential backoff, by a health probe when one is configured.
 */
import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import type { RemoteSettings } from './remote-settings';

export interface Worker {
  /** The URL connected to (its host is an address when resolved from DNS). */
  readonly url: URL;
  /** Host name for TLS (SNI) and the Host header when the URL's host is a resolved address. */
  readonly hostname: string | null;
  /** The configured URL it came from. */
  readonly source: string;
  inUse: number;
  healthy: boolean;
  failures: number;
  retryAt: number;
}

export interface PoolLogger {
  warn(message: string): void;
  log(message: string): void;
}

export class WorkerPool {
  private workers: Worker[] = [];
  private timers: NodeJS.Timeout[] = [];
  private next = 0;

  constructor(
    private readonly settings: RemoteSettings,
    private readonly logger: PoolLogger,
    private readonly now: () => number = Date.now,
  ) {
    if (!settings.resolveDns) this.workers = settings.workers.map((url) => this.newWorker(url, null, url.href));
  }

  async start(): Promise<void> {
    if (this.settings.resolveDns) {
      await this.refreshDns();
      this.timers.push(setInterval(() => void this.refreshDns(), this.settings.dnsRefreshMs).unref());
    }
    if (this.settings.healthPath !== null) {
      await this.probeAll();
      this.timers.push(setInterval(() => void this.probeAll(), this.settings.healthIntervalMs).unref());
    }
  }

  stop(): void {
    for (const timer of this.timers) clearInterval(timer);
    this.timers = [];
  }

  get all(): readonly Worker[] {
    return this.workers;
  }

  /** Takes a slot on the least-loaded usable worker not in `exclude`; null when there is none. */
  acquire(exclude: ReadonlySet<Worker> = new Set()): Worker | null {
    const now = this.now();
    let best: Worker | null = null;
    const count = this.workers.length;
    // Starting the scan at a rotating index spreads ties across workers.
    for (let k = 0; k < count; k++) {
      const worker = this.workers[(this.next + k) % count];
      if (exclude.has(worker) || worker.inUse >= this.settings.maxStreamsPerWorker || !this.usable(worker, now))
        continue;
      if (best === null || worker.inUse < best.inUse) best = worker;
    }
    this.next = count === 0 ? 0 : (this.next + 1) % count;
    if (best) best.inUse++;
    return best;
  }

  release(worker: Worker): void {
    worker.inUse = Math.max(0, worker.inUse - 1);
  }

  /** The worker failed a stream or a probe: out of rotation until its backoff has passed. */
  failed(worker: Worker, why: string): void {
    worker.failures++;
    const backoff = Math.min(
      this.settings.backoffMaxMs,
      this.settings.backoffMinMs * 2 ** Math.min(20, worker.failures - 1),
    );
    worker.retryAt = this.now() + backoff;
    if (worker.healthy) this.logger.warn(`worker ${worker.url.host} taken out: ${why} (retry in ${backoff} ms)`);
    worker.healthy = false;
  }

  succeeded(worker: Worker): void {
    if (!worker.healthy) this.logger.log(`worker ${worker.url.host} back in rotation`);
    worker.healthy = true;
    worker.failures = 0;
  }

  /** Streams in use on every worker, and the slots of the workers in rotation. */
  capacity(): { inUse: number; max: number } {
    const now = this.now();
    let inUse = 0;
    let max = 0;
    for (const worker of this.workers) {
      inUse += worker.inUse;
      if (this.usable(worker, now)) max += this.settings.maxStreamsPerWorker;
    }
    return { inUse, max };
  }

  hasCapacity(): boolean {
    const now = this.now();
    return this.workers.some((w) => w.inUse < this.settings.maxStreamsPerWorker && this.usable(w, now));
  }

  /** Healthy, or (without probes) past its backoff: the next stream is its retry. */
  private usable(worker: Worker, now: number): boolean {
    return worker.healthy || (this.settings.healthPath === null && now >= worker.retryAt);
  }

  private async probeAll(): Promise<void> {
    const now = this.now();
    await Promise.all(this.workers.filter((w) => w.healthy || now >= w.retryAt).map((worker) => this.probe(worker)));
  }

  private async probe(worker: Worker): Promise<void> {
    const url = new URL(this.settings.healthPath!, worker.url);
    url.protocol = worker.url.protocol === 'wss:' ? 'https:' : 'http:';
    url.search = '';
    try {
      const headers: Record<string, string> = worker.hostname ? { host: worker.hostname } : {};
      const response = await fetch(url, { headers, signal: AbortSignal.timeout(this.settings.connectTimeoutMs) });
      await response.body?.cancel();
      if (response.ok) this.succeeded(worker);
      else this.failed(worker, `health probe answered ${response.status}`);
    } catch (error) {
      this.failed(worker, `health probe failed (${(error as Error).message})`);
    }
  }

  private async refreshDns(): Promise<void> {
    const found: Worker[] = [];
    for (const url of this.settings.workers) {
      const host = url.hostname.replace(/^\[|\]$/g, '');
      if (isIP(host)) {
        found.push(this.existing(url.href) ?? this.newWorker(url, null, url.href));
        continue;
      }
      try {
        for (const { address, family } of await lookup(host, { all: true })) {
          const resolved = new URL(url.href);
          resolved.hostname = family === 6 ? `[${address}]` : address;
          found.push(this.existing(resolved.href) ?? this.newWorker(resolved, url.hostname, url.href));
        }
      } catch (error) {
        // Keep what was known: a DNS hiccup must not empty the pool.
        this.logger.warn(`resolving ${host} failed: ${(error as Error).message}`);
        found.push(...this.workers.filter((w) => w.source === url.href));
      }
    }
    this.workers = found;
  }

  private existing(href: string): Worker | undefined {
    return this.workers.find((w) => w.url.href === href);
  }

  private newWorker(url: URL, hostname: string | null, source: string): Worker {
    return { url, hostname, source, inUse: 0, healthy: true, failures: 0, retryAt: 0 };
  }
}
