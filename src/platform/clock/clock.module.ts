import { Module, OnApplicationShutdown } from '@nestjs/common';
import { TickScheduler } from './tick-scheduler';

/**
 * The process's one clock for per-session periodic work (tick-scheduler.ts): whoever wires
 * sessions injects TickScheduler and hands it to them. Stopped at shutdown, after the sessions
 * were drained (beforeApplicationShutdown).
 */
@Module({
  providers: [{ provide: TickScheduler, useFactory: () => new TickScheduler() }],
  exports: [TickScheduler],
})
export class ClockModule implements OnApplicationShutdown {
  constructor(private readonly clock: TickScheduler) {}

  onApplicationShutdown(): void {
    this.clock.stop();
  }
}
