import { Counter, Gauge, Histogram, Registry } from 'prom-client';

/** The code of a rendered refusal body: the ErrorEnvelope's, or `validation_error` for a 422. */
export function refusalCode(body: unknown): string {
  const code = (body as { error?: { code?: unknown } } | null)?.error?.code;
  return typeof code === 'string' ? code : 'validation_error';
}

export interface PoolUse {
  total: number;
  idle: number;
  waiting: number;
}

/**
 * The service's own metrics (docs/architecture.md, "Observability"): sessions by dialect, model and
 * close reason, refusals by code, engine streams, audio, latency to partial and final transcripts,
 * meter flush lag and database pool use. Gauges that mirror live state are read at scrape time.
 */
export class SessionMetrics {
  readonly opened: Counter<'dialect' | 'model'>;
  readonly closed: Counter<'dialect' | 'model' | 'reason'>;
  readonly refusals: Counter<'surface' | 'code'>;
  readonly audioSeconds: Counter<'direction'>;
  readonly firstPartial: Histogram<'model'>;
  readonly finalTranscript: Histogram<'model'>;
  readonly meterWrite: Histogram;
  private readonly engines = new Map<string, () => { inUse: number; max: number }>();
  private readonly meterPending = new Map<string, number>();
  private poolUse: (() => PoolUse) | null = null;

  constructor(
    registry: Registry,
    private readonly now: () => number = Date.now,
  ) {
    const registers = [registry];
    this.opened = new Counter({
      name: 'continuum_sessions_opened_total',
      help: 'Sessions started on this instance, by dialect and model',
      labelNames: ['dialect', 'model'],
      registers,
    });
    this.closed = new Counter({
      name: 'continuum_sessions_closed_total',
      help: 'Sessions ended on this instance, by dialect, model and close reason',
      labelNames: ['dialect', 'model', 'reason'],
      registers,
    });
    this.refusals = new Counter({
      name: 'continuum_refusals_total',
      help: 'Refused socket handshakes and client secrets, by surface (handshake|secret) and error code',
      labelNames: ['surface', 'code'],
      registers,
    });
    this.audioSeconds = new Counter({
      name: 'continuum_audio_seconds_total',
      help: 'Seconds of audio into engines (in) and synthesised out of them (out)',
      labelNames: ['direction'],
      registers,
    });
    const latency = [0.05, 0.1, 0.25, 0.5, 0.75, 1, 1.5, 2, 3, 5, 10];
    this.firstPartial = new Histogram({
      name: 'continuum_time_to_first_partial_seconds',
      help: 'From the start of an utterance (speech detected) to its first partial transcript',
      labelNames: ['model'],
      buckets: latency,
      registers,
    });
    this.finalTranscript = new Histogram({
      name: 'continuum_time_to_final_seconds',
      help: 'From the end of an utterance (speech stopped or commit) to its final transcript',
      labelNames: ['model'],
      buckets: latency,
      registers,
    });
    this.meterWrite = new Histogram({
      name: 'continuum_meter_write_seconds',
      help: 'Time to persist one meter batch, retries included',
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers,
    });
    const lag: Gauge = new Gauge({
      name: 'continuum_meter_flush_lag_seconds',
      help: 'Age of the oldest meter batch handed over but not yet persisted (0 when none)',
      registers,
      collect: () => {
        const oldest = Math.min(...this.meterPending.values());
        lag.set(Number.isFinite(oldest) ? (this.now() - oldest) / 1000 : 0);
      },
    });
    for (const [name, pick] of [
      ['continuum_engine_streams_in_use', (c: { inUse: number; max: number }) => c.inUse],
      ['continuum_engine_streams_free', (c: { inUse: number; max: number }) => Math.max(0, c.max - c.inUse)],
    ] as const) {
      const streams: Gauge<'engine'> = new Gauge({
        name,
        help: `Engine streams ${name.endsWith('free') ? 'free' : 'in use'} on this instance, per engine`,
        labelNames: ['engine'],
        registers,
        collect: () => {
          for (const [engine, capacity] of this.engines) streams.set({ engine }, pick(capacity()));
        },
      });
    }
    const pool: Gauge<'state'> = new Gauge({
      name: 'continuum_db_pool_connections',
      help: 'Database pool connections: total open, idle, and requests waiting for one',
      labelNames: ['state'],
      registers,
      collect: () => {
        const use = this.poolUse?.();
        if (!use) return;
        pool.set({ state: 'total' }, use.total);
        pool.set({ state: 'idle' }, use.idle);
        pool.set({ state: 'waiting' }, use.waiting);
      },
    });
  }

  watchEngine(name: string, capacity: () => { inUse: number; max: number }): void {
    this.engines.set(name, capacity);
  }

  watchPool(use: () => PoolUse): void {
    this.poolUse = use;
  }

  /** A meter batch was handed over; the first hand-over of a retried batch counts. */
  meterStarted(key: string): void {
    if (!this.meterPending.has(key)) this.meterPending.set(key, this.now());
  }

  meterDone(key: string, persisted: boolean): void {
    const since = this.meterPending.get(key);
    if (since === undefined) return;
    if (persisted) this.meterWrite.observe((this.now() - since) / 1000);
    this.meterPending.delete(key);
  }

  /** A session is over: batches it never persisted no longer count as lag. */
  forgetSession(sessionId: string): void {
    for (const key of this.meterPending.keys()) if (key.startsWith(`${sessionId}:`)) this.meterPending.delete(key);
  }
}
