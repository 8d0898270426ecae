import { Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { SchedulerRegistry } from '@nestjs/schedule';
import { AppConfig } from '../../config/app-config';
import { DatabaseAvailability } from '../../platform/database/database-availability';
import { SessionEnds } from './session-ends';
import { SessionExpirySweeper } from './session-expiry.sweeper';
import { SessionReaper } from './session-reaper';

/**
 * The sessions table's periodic work on every instance: the expiry sweep and the reaper. Periods come
 * from the configuration, hence intervals registered at start rather than decorators. A slow pass is
 * never overlapped by the next one of its kind, and shutdown waits for passes in flight (and then
 * closes the end signals), so that the pool is never closed under them.
 */
@Injectable()
export class SessionSchedule implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('SessionReaperService');
  private readonly running = new Map<string, Promise<unknown>>();

  constructor(
    private readonly scheduler: SchedulerRegistry,
    private readonly sweeper: SessionExpirySweeper,
    private readonly reaper: SessionReaper,
    private readonly ends: SessionEnds,
    private readonly config: AppConfig,
    private readonly availability: DatabaseAvailability,
  ) {}

  onApplicationBootstrap(): void {
    this.every('session-expiry', this.config.sessionExpirySweepSeconds, () => this.sweeper.sweep());
    const reap = () =>
      this.reaper.reapOnce().catch((error: unknown) => this.logger.error({ err: error }, 'session reaper pass failed'));
    if (this.config.sessionReaperIntervalSeconds > 0) {
      this.every('session-reaper', this.config.sessionReaperIntervalSeconds, reap);
    }
  }

  async onApplicationShutdown(): Promise<void> {
    for (const name of ['session-expiry', 'session-reaper']) {
      if (this.scheduler.doesExist('interval', name)) this.scheduler.deleteInterval(name);
    }
    await Promise.all(this.running.values());
    await this.ends.close();
  }

  private every(name: string, seconds: number, pass: () => Promise<unknown>): void {
    const timer = setInterval(() => {
      // While the database is away a pass could only fail; the availability said so once.
      if (this.running.has(name) || !this.availability.isUp) return;
      this.running.set(
        name,
        pass().finally(() => this.running.delete(name)),
      );
    }, seconds * 1000);
    timer.unref(); // never the reason a process stays alive
    this.scheduler.addInterval(name, timer);
  }
}
