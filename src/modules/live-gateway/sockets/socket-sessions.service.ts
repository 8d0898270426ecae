import {
  BeforeApplicationShutdown,
  Inject,
  Injectable,
  Logger,
  OnApplicationBootstrap,
  OnModuleInit,
} from '@nestjs/common';
import { AppConfig } from '../../../config/app-config';
import { SessionRegistry, SessionRuntime } from '../../../session-core';
import { LifecycleState } from '../../health/lifecycle-state';
import { MetricsService } from '../../metrics/metrics.service';
import { RegisteredSessionTerminator, SESSION_TERMINATOR } from '../../sessions/session-terminator';
import { HeldSessionsRepository } from './held-sessions.repository';
import { InstanceIdentity } from './instance-identity';
import type { SessionPorts } from './session-ports.factory';

const HEARTBEAT_MS = 5000;
const DRAIN_POLL_MS = 250;

/**
 * The sessions whose sockets this instance holds, for every dialect: DELETE reaches them here (at
 * once on this instance, within a heartbeat from another), as does a key's revocation (within a heartbeat), the heartbeat keeps the reaper away, and
 * shutdown drains them: no new sockets, live ones get the grace period, then each is closed and
 * recorded (never left `active`).
 */
@Injectable()
export class SocketSessions implements OnModuleInit, OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('SocketSessions');
  private readonly registry = new SessionRegistry();
  private heartbeatTimer: NodeJS.Timeout | null = null;
  private beating: Promise<void> | null = null;

  constructor(
    private readonly held: HeldSessionsRepository,
    private readonly instance: InstanceIdentity,
    private readonly lifecycle: LifecycleState,
    private readonly metrics: MetricsService,
    private readonly config: AppConfig,
    @Inject(SESSION_TERMINATOR) private readonly terminator: RegisteredSessionTerminator,
  ) {}

  onModuleInit(): void {
    // A session held elsewhere is not in this registry; its holder sees the deletion on its heartbeat.
    this.terminator.register({ terminate: async (s) => void (await this.registry.end(s.id, { kind: 'deleted' })) });
  }

  onApplicationBootstrap(): void {
    this.heartbeatTimer = setInterval(() => void this.beat(), HEARTBEAT_MS);
    this.heartbeatTimer.unref();
  }

  get size(): number {
    return this.registry.size;
  }

  /** Tracks a connection's runtime until it is done, then settles its row. */
  track(dialect: string, runtime: SessionRuntime, ports: SessionPorts): void {
    this.registry.add(runtime);
    this.metrics.liveSessions.inc({ dialect });
    void runtime.done.then(async () => {
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
    if (this.heartbeatTimer) clearInterval(this.heartbeatTimer);
    await this.beating;
  }

  private async beat(): Promise<void> {
    if (this.beating) return;
    this.beating = (async () => {
      try {
        const { deleted, keyRevoked } = await this.held.heartbeat(this.instance.id, this.registry.ids());
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
  }
}
