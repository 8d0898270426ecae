import { Logger, Provider } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { AppConfig } from '../../../config/app-config';
import { DatabaseLocation } from '../../../platform/database/database.module';
import { PgSessionEndSignals } from './pg-session-end-signals';
import { InProcessSessionEndSignals, SESSION_END_SIGNALS, SessionEndSignals } from './session-end-signals';

const PROBE_TIMEOUT_MS = 2000;

/**
 * LISTEN/NOTIFY on a real PostgreSQL, in-process on the embedded one (PGlite, which answers LISTEN
 * but delivers the notification to the sender's connection). A server where a probe notification does
 * not come back (e.g. behind PgBouncer in transaction mode) falls back to in-process signals with a
 * warning: a DELETE then reaches another instance's socket at its next heartbeat (≤ 5 s).
 */
export const sessionEndSignalsProvider: Provider = {
  provide: SESSION_END_SIGNALS,
  inject: [DatabaseLocation, DataSource, AppConfig],
  useFactory: async (
    location: DatabaseLocation,
    dataSource: DataSource,
    config: AppConfig,
  ): Promise<SessionEndSignals> => {
    const logger = new Logger('SessionEndSignals');
    if (config.sessionSignals === 'heartbeat' || location.embedded || (await isPglite(dataSource))) {
      return new InProcessSessionEndSignals();
    }
    const signals = new PgSessionEndSignals(
      location.url,
      (channel, payload) => dataSource.query('SELECT pg_notify($1, $2)', [channel, payload]),
      { warn: (m) => logger.warn(m), error: (context, m) => logger.error(context, m) },
    );
    await signals.start();
    if (await signals.probe(PROBE_TIMEOUT_MS)) return signals;
    logger.warn('LISTEN/NOTIFY does not reach this instance (a pooler?); DELETE reaches other instances by heartbeat');
    await signals.close();
    return new InProcessSessionEndSignals();
  },
};

async function isPglite(dataSource: DataSource): Promise<boolean> {
  const [{ version }] = await dataSource.query<{ version: string }[]>('SELECT version()');
  return version.includes('PGlite');
}
