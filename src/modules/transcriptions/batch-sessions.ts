/**
 * A batch request is a session: admitted like any other (credit, the project's concurrency), held by
 * this instance while it runs (the 5 s heartbeat the reaper reads; a DELETE or a revoked key seen there
 * aborts it), billed once for the audio's duration, and closed. Usage goes through the same writer as
 * the sockets' (kept through a database outage), so every usage view sees the same frames. It counts
 * in the session metrics as sockets' sessions do, with the endpoint's family as its `dialect`.
 */
import { Injectable, Logger, OnModuleDestroy } from '@nestjs/common';
import { hostname } from 'node:os';
import { randomBase62 } from '../../platform/ids';
import { FRAME_MS } from '../../session-core';
import type { ApiKeyPrincipal } from '../auth';
import { type OpenedSession, SessionsService } from '../sessions';
import { MetricsService } from '../metrics';
import { PendingUsageWriter } from '../usage';

const HEARTBEAT_MS = 5000;

/**
 * The metrics' `dialect` of a batch session: `transcriptions` (OpenAI's POST /v1/audio/transcriptions)
 * or `listen-prerecorded` (Deepgram's POST /v1/listen), beside the sockets' live, realtime, listen, flux.
 */
export type BatchDialect = 'transcriptions' | 'listen-prerecorded';

interface Held {
  controller: AbortController;
  dialect: BatchDialect;
  model: string;
}

export interface HeldBatch {
  session: OpenedSession;
  /** Aborted when the session is deleted or its key revoked meanwhile. */
  signal: AbortSignal;
}

@Injectable()
export class BatchSessions implements OnModuleDestroy {
  private readonly logger = new Logger('BatchSessions');
  /** Names this process on the batch sessions it holds. */
  readonly instanceId = `${hostname().slice(0, 40)}-${randomBase62(8)}`;
  private readonly held = new Map<string, Held>();
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly sessions: SessionsService,
    private readonly usage: PendingUsageWriter,
    private readonly metrics: MetricsService,
  ) {}

  async open(principal: ApiKeyPrincipal, model: string, language: string, dialect: BatchDialect): Promise<HeldBatch> {
    const session = await this.sessions.openWithApiKey(
      principal,
      {
        type: 'transcription',
        model,
        audio: { input: { transcription: { language } } },
      },
      { instanceId: this.instanceId },
    );
    const controller = new AbortController();
    this.held.set(session.id, { controller, dialect, model });
    this.metrics.sessions.opened.inc({ dialect, model });
    this.metrics.liveSessions.inc({ dialect });
    try {
      await this.sessions.recordTransport(session.id, 'batch');
    } catch (error) {
      await this.abandon(session.id);
      throw error;
    }
    this.timer ??= setInterval(() => void this.beat(), HEARTBEAT_MS);
    return { session, signal: controller.signal };
  }

  /**
   * Bills `durationMs` of audio (whole frames, as every session) and closes the session. `countAudio`:
   * the audio went to an engine the metrics do not wrap (a batch process, an upstream), so it is
   * counted here.
   */
  async complete(sessionId: string, durationMs: number, countAudio: boolean): Promise<number> {
    const frames = Math.ceil(durationMs / FRAME_MS);
    const held = this.held.get(sessionId);
    try {
      await this.usage.recordBatch(sessionId, { seq: 1, frames });
      await this.usage.recordClose(sessionId, { reason: 'close_requested', endedAtMs: Date.now() });
      this.closed(held, 'close_requested');
      if (countAudio) this.metrics.sessions.audioSeconds.inc({ direction: 'in' }, durationMs / 1000);
    } finally {
      this.release(sessionId);
    }
    return frames;
  }

  /** Closes a session whose work failed or was abandoned: nothing is billed. */
  async abandon(sessionId: string): Promise<void> {
    const held = this.held.get(sessionId);
    this.release(sessionId);
    this.closed(held, 'connection_lost');
    try {
      await this.usage.recordClose(sessionId, { reason: 'connection_lost', endedAtMs: Date.now() });
    } catch (error) {
      this.logger.error({ err: error, sessionId }, 'could not record an abandoned batch session as closed');
    }
  }

  onModuleDestroy(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  private closed(held: Held | undefined, reason: string): void {
    if (held) this.metrics.sessions.closed.inc({ dialect: held.dialect, model: held.model, reason });
  }

  private release(sessionId: string): void {
    const held = this.held.get(sessionId);
    if (held) this.metrics.liveSessions.dec({ dialect: held.dialect });
    this.held.delete(sessionId);
    if (this.held.size === 0 && this.timer) {
      clearInterval(this.timer);
      this.timer = null;
    }
  }

  private async beat(): Promise<void> {
    const ids = [...this.held.keys()];
    try {
      const { deleted, keyRevoked } = await this.sessions.heartbeat(this.instanceId, ids);
      for (const id of [...deleted, ...keyRevoked])
        this.held.get(id)?.controller.abort(new Error('the session was ended'));
    } catch (error) {
      // A missed beat is caught up by the next; the reaper waits several.
      this.logger.warn({ err: error }, 'batch session heartbeat failed');
    }
  }
}
