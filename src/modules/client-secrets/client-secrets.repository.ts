import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import type { SessionAudioConfig, SessionType } from '../sessions';
import type { OpenedSession } from '../sessions';

/** A secret found by its hash, row-locked until the transaction ends. */
export interface LockedSecret {
  id: string;
  used: boolean;
  revoked: boolean;
  /** The API key that issued it was revoked (which revoked the secret too). */
  keyRevoked: boolean;
  lapsed: boolean;
}

/** The session a redemption activated, with what the caller still has to check. */
export interface ActivatedSession extends OpenedSession {
  /** The project's balance is above its credit limit, or it has none. */
  hasCredit: boolean;
}

interface ActivatedRow {
  id: string;
  project_id: string;
  api_key_id: string | null;
  type: SessionType;
  model: string;
  pool: string;
  region: string;
  audio: SessionAudioConfig;
  metadata: Record<string, string>;
  started_at: Date;
  realtime_session: Record<string, unknown> | null;
  has_credit: boolean;
}

@Injectable()
export class ClientSecretsRepository {
  /** Concurrent redemptions of one secret queue on this lock; each then sees the winner's used_at. */
  async lockByHash(manager: EntityManager, secretHash: string): Promise<LockedSecret | null> {
    const rows: { id: string; used: boolean; revoked: boolean; key_revoked: boolean; lapsed: boolean }[] =
      await manager.query(
        `SELECT c.id, c.used_at IS NOT NULL AS used, c.revoked_at IS NOT NULL AS revoked,
                c.expires_at <= now() AS lapsed,
                EXISTS (SELECT 1 FROM sessions s JOIN api_keys k ON k.id = s.api_key_id
                         WHERE s.id = c.session_id AND k.revoked_at IS NOT NULL) AS key_revoked
           FROM client_secrets c WHERE c.secret_hash = $1 FOR UPDATE OF c`,
        [secretHash],
      );
    const row = rows[0];
    return row
      ? { id: row.id, used: row.used, revoked: row.revoked, keyRevoked: row.key_revoked, lapsed: row.lapsed }
      : null;
  }

  /**
   * Whether the key that issued the secret is revoked, read in a statement of its own: the locking
   * read above, after waiting for a revocation to commit, sees the secret's new row but other tables
   * as they were when it started.
   */
  async issuedByRevokedKey(manager: EntityManager, secretId: string): Promise<boolean> {
    const rows: { revoked: boolean }[] = await manager.query(
      `SELECT EXISTS (SELECT 1 FROM client_secrets c JOIN sessions s ON s.id = c.session_id
                        JOIN api_keys k ON k.id = s.api_key_id
                       WHERE c.id = $1 AND k.revoked_at IS NOT NULL) AS revoked`,
      [secretId],
    );
    return rows[0]?.revoked ?? false;
  }

  /**
   * Marks the secret used and its session active in one statement. Null when the session is no longer
   * pending (the sweeper expired it at the very moment the secret lapsed). The conversation settings
   * the secret carried are handed over and no longer kept: from now on its socket holds them.
   */
  async useAndActivate(
    manager: EntityManager,
    secretId: string,
    instanceId: string | null,
  ): Promise<ActivatedSession | null> {
    // TypeORM answers an UPDATE … RETURNING with [rows, rowCount].
    const [rows]: [ActivatedRow[], number] = await manager.query(
      `WITH used AS (
         UPDATE client_secrets c SET used_at = now(), realtime_session = NULL
           FROM client_secrets o WHERE c.id = $1 AND o.id = c.id
         RETURNING c.session_id, o.realtime_session
       )
       UPDATE sessions s
          SET status = 'active', started_at = now(), heartbeat_at = now(), instance_id = $2
         FROM used, projects p
        WHERE s.id = used.session_id AND p.id = s.project_id AND s.status = 'pending' AND s.deleted_at IS NULL
       RETURNING s.id, s.project_id, s.api_key_id, s.type, s.model, s.pool, s.region, s.audio, s.metadata,
                 s.started_at, used.realtime_session,
                 (p.credit_limit_micros IS NULL OR p.balance_micros > -p.credit_limit_micros) AS has_credit`,
      [secretId, instanceId],
    );
    const row = rows[0];
    if (!row) return null;
    return {
      id: row.id,
      projectId: row.project_id,
      apiKeyId: row.api_key_id,
      type: row.type,
      model: row.model,
      pool: row.pool,
      region: row.region,
      audio: row.audio,
      metadata: row.metadata,
      startedAt: row.started_at,
      realtimeSession: row.realtime_session,
      hasCredit: row.has_credit,
    };
  }
}
