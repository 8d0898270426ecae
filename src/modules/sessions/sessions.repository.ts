import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, Repository, SelectQueryBuilder } from 'typeorm';
import {
  SessionEntity,
  type CloseReason,
  type SessionStatus,
  type SessionTransport,
  type SessionType,
} from './entities/session.entity';
import type { SessionCursor } from './session-cursor';

/** A session as the API shows it: the stored row plus its effective status and its sort key. */
export interface VisibleSession {
  session: SessionEntity;
  status: SessionStatus;
  cursor: SessionCursor;
}

export interface SessionFilter {
  fromSeconds?: number;
  toSeconds?: number;
  status?: SessionStatus;
  after?: SessionCursor;
}

/** What DELETE found under its row lock. */
export interface LockedSession {
  status: SessionStatus;
  instanceId: string | null;
}

/** What a socket's client may change on a running session, as the row's `audio.input` spells it. */
export interface EngineSettings {
  language: string;
  turnDetection: Record<string, unknown> | null;
}

/** A pending session whose secret lapsed is expired already, whether or not the sweeper has run. */
const EFFECTIVE_STATUS = `CASE WHEN s.status = 'pending' AND s.expires_at <= now() THEN 'expired' ELSE s.status END`;
/** Microsecond precision in UTC: a JS Date would round to milliseconds and break ties between rows. */
const SORT_KEY = `to_char(s.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;

@Injectable()
export class SessionsRepository {
  constructor(@InjectRepository(SessionEntity) private readonly sessions: Repository<SessionEntity>) {}

  async findVisible(projectId: string, id: string): Promise<VisibleSession | null> {
    const [found] = await this.fetch(this.visible(projectId).andWhere('s.id = :id', { id }).limit(1));
    return found ?? null;
  }

  async findVisibleByCallId(projectId: string, callId: string): Promise<VisibleSession | null> {
    const [found] = await this.fetch(this.visible(projectId).andWhere('s.call_id = :callId', { callId }).limit(1));
    return found ?? null;
  }

  /** Newest first; `limit` rows at most. */
  list(projectId: string, filter: SessionFilter, limit: number): Promise<VisibleSession[]> {
    const query = this.visible(projectId);
    if (filter.fromSeconds !== undefined)
      query.andWhere('s.created_at >= to_timestamp(:from)', { from: filter.fromSeconds });
    if (filter.toSeconds !== undefined) query.andWhere('s.created_at < to_timestamp(:to)', { to: filter.toSeconds });
    if (filter.status !== undefined) query.andWhere(`${EFFECTIVE_STATUS} = :status`, { status: filter.status });
    if (filter.after) {
      query.andWhere('(s.created_at, s.id) < (CAST(:afterAt AS timestamptz), :afterId)', {
        afterAt: filter.after.createdAt,
        afterId: filter.after.id,
      });
    }
    return this.fetch(query.orderBy('s.created_at', 'DESC').addOrderBy('s.id', 'DESC').limit(limit));
  }

  /**
   * Hides the session, in one transaction under row locks, and says what it was. A pending one also
   * loses its secret and stops counting toward the limit: it becomes `closed` (close_requested), or
   * `expired` if its secret had lapsed. Other states stay as they are; an active session is ended by
   * its socket, which records the close. Null when there is no such visible session.
   */
  hideVisible(projectId: string, id: string): Promise<LockedSession | null> {
    // Only the transaction's manager inside: on the embedded database another connection would wait.
    return this.sessions.manager.transaction(async (manager) => {
      const found = await this.lockVisible(manager, projectId, id);
      if (found) await this.hide(manager, id);
      return found;
    });
  }

  /**
   * Locks the session's client secret and then the session itself, in the order redemption locks
   * them, so that a DELETE racing a redemption waits instead of deadlocking.
   */
  private async lockVisible(manager: EntityManager, projectId: string, id: string): Promise<LockedSession | null> {
    await manager.query('SELECT 1 FROM client_secrets WHERE session_id = $1 FOR UPDATE', [id]);
    const rows: { status: SessionStatus; instance_id: string | null }[] = await manager.query(
      `SELECT status, instance_id FROM sessions WHERE id = $1 AND project_id = $2 AND deleted_at IS NULL FOR UPDATE`,
      [id, projectId],
    );
    const row = rows[0];
    return row ? { status: row.status, instanceId: row.instance_id } : null;
  }

  private async hide(manager: EntityManager, id: string): Promise<void> {
    await manager.query(
      `WITH revoked AS (
         UPDATE client_secrets SET revoked_at = now()
          WHERE session_id = $1 AND used_at IS NULL AND revoked_at IS NULL
       )
       UPDATE sessions SET
         deleted_at = now(),
         status = CASE WHEN status <> 'pending' THEN status WHEN expires_at <= now() THEN 'expired' ELSE 'closed' END,
         close_reason = CASE WHEN status = 'pending' AND expires_at > now() THEN 'close_requested' ELSE close_reason END,
         ended_at = CASE WHEN status = 'pending' AND expires_at > now() THEN now() ELSE ended_at END
       WHERE id = $1`,
      [id],
    );
  }

  /** One statement, idempotent: any number of instances may run it at once. */
  async expireLapsedPending(): Promise<number> {
    const result = await this.sessions
      .createQueryBuilder()
      .update()
      .set({ status: 'expired' })
      .where(`status = 'pending' AND expires_at <= now()`)
      .execute();
    return result.affected ?? 0;
  }

  async markClosed(id: string, reason: CloseReason, endedAt?: Date): Promise<boolean> {
    const result = await this.sessions
      .createQueryBuilder()
      .update()
      .set({
        status: 'closed',
        closeReason: reason,
        endedAt: endedAt ?? (() => 'now()'),
      })
      .where(`id = :id AND status = 'active'`, { id })
      .execute();
    return (result.affected ?? 0) > 0;
  }

  /**
   * The type of the session a client secret opens, read without redeeming it, so that a socket that
   * cannot serve it refuses before the secret is spent. Null for an unknown secret.
   */
  async typeBySecretHash(secretHash: string): Promise<SessionType | null> {
    const rows: { type: SessionType }[] = await this.sessions.query(
      `SELECT s.type FROM client_secrets c JOIN sessions s ON s.id = c.session_id WHERE c.secret_hash = $1`,
      [secretHash],
    );
    return rows[0]?.type ?? null;
  }

  async recordTransport(
    id: string,
    transport: SessionTransport,
    callId: string | null,
    callOwnerUrl: string | null,
  ): Promise<void> {
    await this.sessions.update({ id }, { transport, callId, callOwnerUrl });
  }

  /** Stores the language and turn detection a socket's client chose, keeping the rest (model, prompt). */
  async recordEngineSettings(id: string, settings: EngineSettings): Promise<void> {
    await this.sessions.query(
      `UPDATE sessions
          SET audio = jsonb_set(jsonb_set(audio, '{input,transcription,language}', $2::jsonb),
                                '{input,turn_detection}', $3::jsonb)
        WHERE id = $1`,
      [id, JSON.stringify(settings.language), JSON.stringify(settings.turnDetection)],
    );
  }

  private visible(projectId: string): SelectQueryBuilder<SessionEntity> {
    return this.sessions
      .createQueryBuilder('s')
      .addSelect(EFFECTIVE_STATUS, 'effective_status')
      .addSelect(SORT_KEY, 'sort_key')
      .where('s.project_id = :projectId', { projectId })
      .andWhere('s.deleted_at IS NULL');
  }

  private async fetch(query: SelectQueryBuilder<SessionEntity>): Promise<VisibleSession[]> {
    const { entities, raw } = await query.getRawAndEntities<{
      s_id: string;
      effective_status: SessionStatus;
      sort_key: string;
    }>();
    const byId = new Map(raw.map((row) => [row.s_id, row]));
    return entities.map((session) => {
      const row = byId.get(session.id)!;
      return { session, status: row.effective_status, cursor: { createdAt: row.sort_key, id: session.id } };
    });
  }
}
