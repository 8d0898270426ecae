import { BeforeApplicationShutdown, Injectable, Logger, OnApplicationBootstrap, OnModuleInit } from '@nestjs/common';
import type { WebSocket } from 'ws';
import { AppConfig } from '../../config/app-config';
import { SessionRegistry, SessionRuntime } from '../../session-core/index';
import { LifecycleState } from '../../modules/health';
import { MetricsService } from '../../modules/metrics';
import { SessionEnds, SessionsService } from '../../modules/sessions';
import type { Rotation } from '../../platform/clock/rotation';
import { TickScheduler } from '../../platform/clock/tick-scheduler';
import { DatabaseAvailability } from '../../platform/database/database-availability';
import { InstanceIdentity } from './instance-identity';
import { PendingUsageWriter } from '../../modules/usage';
import type { SessionPorts } from './session-ports.factory';
import { SocketKeepAlive } from './socket-keepalive';

const HEARTBEAT_MS = 5000;
/**
 * The heartbeat's rotation: each session beats once per HEARTBEAT_MS, in one of this many slots
 * (one query per slot, for that slot's sessions), so no beat carries every session at once.
 */
const HEARTBEAT_SLOTS = 10;
const DRAIN_POLL_MS = 250;
/** After the grace, how long the drain waits for a database that is away to take the usage kept meanwhile. */
const WRITE_BACK_AT_SHUTDOWN_MS = 1500;

/**
 * The sessions whose sockets this instance holds, for every dialect: DELETE reaches them here (at
 * once on this instance, by LISTEN/NOTIFY from another, and by the heartbeat as the fallback), as does a
 * key's revocation (within a heartbeat), the heartbeat keeps the reaper away, keep-alive pings find dead
 * peers, and shutdown drains them: no new sockets, live ones get the grace period, then each is closed
 * and recorded (never left `active`). The heartbeat and the keep-alive run on the shared clock
 * (TickScheduler), spread over its ticks: each session is in one heartbeat slot and one keep-alive slot.
 */
@Injectable()
export class SocketSessions implements OnModuleInit, OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('SocketSessions');
  private readonly registry = new SessionRegistry();
  private readonly keepAlive: SocketKeepAlive;
  private heartbeat: Rotation<string> | null = null;
  private beating: Promise<void> | null = null;
  /** Sessions whose beat came due while another beat was in flight: they go in the next one. */
  private readonly owed = new Set<string>();
  private owedAll = false;

  constructor(
    private readonly sessions: SessionsService,
    private readonly instance: InstanceIdentity,
    private readonly lifecycle: LifecycleState,
    private readonly metrics: MetricsService,
    private readonly config: AppConfig,
    private readonly ends: SessionEnds,
    private readonly availability: DatabaseAvailability,
    private readonly usage: PendingUsageWriter,
    private readonly clock: TickScheduler,
  ) {
    this.keepAlive = new SocketKeepAlive(
      { pingIntervalMs: config.socketPingIntervalMs, pongTimeoutMs: config.socketPongTimeoutMs },
      clock,
    );
  }

  onModuleInit(): void {
    // Signals may have been missed while the listening connection was down: then ask the database.
    this.ends.hold(
      (id) => this.registry.end(id, { kind: 'deleted' }),
      () => void this.beat(),
    );
    // No holder could beat during an outage: beat at once when it ends, before any reaper looks.
    this.availability.onUp(() => this.beat());
  }

  onApplicationBootstrap(): void {
    this.heartbeat = this.clock.rotation<string>(HEARTBEAT_MS, HEARTBEAT_SLOTS, (ids) => void this.beat(ids));
  }

  /** A socket handshake was refused with this error code (for the metrics). */
  refused(code: string): void {
    this.metrics.sessions.refusals.inc({ surface: 'handshake', code });
  }

  get size(): number {
    return this.registry.size;
  }

  /** Tracks a connection's runtime until it is done, then settles its row; pings its socket meanwhile. */
  track(dialect: string, runtime: SessionRuntime, ports: SessionPorts, ws?: WebSocket): void {
    this.registry.add(runtime);
    const beats = this.heartbeat?.join(runtime.sessionId) ?? null;
    this.metrics.liveSessions.inc({ dialect });
    if (ws) {
      this.keepAlive.watch(ws, () => {
        // The cause first, so the socket's close event that follows cannot record another one.
        const ended = runtime.end({ kind: 'keepalive_timeout' });
        ws.terminate();
        void ended;
      });
    }
    void runtime.done.then(async () => {
      beats?.leave();
      this.metrics.liveSessions.dec({ dialect });
      await ports.settle();
    });
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.lifecycle.startDraining();
    const deadline = Date.now() + this.config.shutdownGraceSeconds * 1000;
    while (this.registry.size > 0 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, DRAIN_POLL_MS));
    }
    if (this.registry.size > 0) {
      this.logger.log(`closing ${this.registry.size} live session(s) for shutdown`);
      await this.registry.endAll({ kind: 'shutdown' });
    }
    await this.usage.flushBefore(Date.now() + WRITE_BACK_AT_SHUTDOWN_MS);
    this.keepAlive.stop();
    this.heartbeat?.clear();
    this.heartbeat = null;
    await this.beating;
  }

  /**
   * Beats `ids` (a heartbeat slot's sessions), or every session held. One beat at a time: what comes
   * due meanwhile is owed, and goes in one beat after it (never a queue of beats).
   */
  private async beat(ids?: readonly string[]): Promise<void> {
    if (!this.availability.isUp) return;
    if (this.beating) {
      if (ids === undefined) this.owedAll = true;
      else for (const id of ids) this.owed.add(id);
      return;
    }
    this.beating = (async () => {
      try {
        const { deleted, keyRevoked } = await this.sessions.heartbeat(this.instance.id, ids ?? this.registry.ids());
        await Promise.all([
          ...deleted.map((id) => this.registry.end(id, { kind: 'deleted' })),
          ...keyRevoked.map((id) => this.registry.end(id, { kind: 'key_revoked' })),
        ]);
      } catch (error) {
        this.logger.error({ err: error }, 'session heartbeat failed');
      } finally {
        this.beating = null;
      }
    })();
    await this.beating;
    if (this.owedAll || this.owed.size > 0) {
      const all = this.owedAll;
      const owed = [...this.owed];
      this.owedAll = false;
      this.owed.clear();
      await this.beat(all ? undefined : owed);
    }
  }
}
