import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { RequestRate } from '../auth/principal';
import type { KeyCheck } from '../projects/api-keys.repository';
import type { SessionAudioConfig, SessionType } from './entities/session.entity';

export interface NewSession {
  id: string;
  type: SessionType;
  model: string;
  pool: string;
  region: string;
  metadata: Record<string, string>;
  audio: SessionAudioConfig;
}

/**
 * Whose session it is: a key the caller already checked, or a key the statement itself checks (taking
 * the request's token from its bucket) before it admits anything for that key's project.
 */
export type AdmissionCaller =
  | { kind: 'checked'; projectId: string; apiKeyId: string | null }
  | { kind: 'unchecked'; keyHash: string; rate: RequestRate };

/** A pending session is issued with its secret; an active one is opened on a socket right away. */
export type Admission =
  | { status: 'pending'; secret: { id: string; hash: string; ttlSeconds: number } }
  | { status: 'active'; instanceId: string | null };

export type AdmissionOutcome =
  | { outcome: 'admitted'; createdAt: Date; startedAt: Date | null; expiresAt: Date | null }
  /** The unchecked key is unknown (`key` null), or revoked or out of tokens: nothing was admitted. */
  | { outcome: 'key_refused' }
  | { outcome: 'no_project' | 'no_credit' }
  /** `nextFreeInMs`: until the first open session stops counting (null when none will by itself). */
  | { outcome: 'limit'; openSessions: number; nextFreeInMs: number | null };

/** For an unchecked key, `key` is what the database found (null: no such key). */
export type AdmissionResult = AdmissionOutcome & { key: KeyCheck | null };

interface AdmissionRow {
  o_outcome: 'admitted' | 'no_key' | 'key_refused' | 'no_project' | 'no_credit' | 'limit';
  o_open_sessions: number | null;
  o_next_free_ms: number | null;
  o_created_at: Date | null;
  o_started_at: Date | null;
  o_expires_at: Date | null;
  o_project_id: string | null;
  o_api_key_id: string | null;
  o_key_revoked: boolean | null;
  o_key_allowed: boolean | null;
  o_key_tokens: number | null;
}

@Injectable()
export class SessionAdmissionRepository {
  constructor(private readonly dataSource: DataSource) {}

  /**
   * One statement: continuum_admit_session() (migrations SessionAdmission, KeyCheckedAdmission) checks
   * an unchecked key, locks the project's row, checks credit and the concurrency limit and inserts the
   * session (and its secret) under that lock. One round trip, so admissions of one project queue only
   * for the database's own work, on every instance sharing the database.
   */
  async admit(
    caller: AdmissionCaller,
    session: NewSession,
    admission: Admission,
    limits: { concurrentSessions: number; maxSessionSeconds: number },
  ): Promise<AdmissionResult> {
    const pending = admission.status === 'pending';
    const unchecked = caller.kind === 'unchecked' ? caller : null;
    const checked = caller.kind === 'checked' ? caller : null;
    const rows: AdmissionRow[] = await this.dataSource.query(
      `SELECT * FROM continuum_admit_session(
         $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19)`,
      [
        unchecked?.keyHash ?? null,
        unchecked?.rate.capacity ?? null,
        unchecked?.rate.refillPerSecond ?? null,
        session.id,
        checked?.projectId ?? null,
        checked?.apiKeyId ?? null,
        session.type,
        session.model,
        admission.status,
        session.pool,
        session.region,
        pending ? null : admission.instanceId,
        pending ? admission.secret.ttlSeconds : null,
        JSON.stringify(session.metadata),
        JSON.stringify(session.audio),
        limits.maxSessionSeconds,
        limits.concurrentSessions,
        pending ? admission.secret.id : null,
        pending ? admission.secret.hash : null,
      ],
    );
    const row = rows[0];
    const key: KeyCheck | null =
      unchecked && row.o_outcome !== 'no_key'
        ? {
            id: row.o_api_key_id!,
            projectId: row.o_project_id!,
            revoked: row.o_key_revoked!,
            allowed: row.o_key_allowed!,
            tokens: row.o_key_tokens!,
          }
        : null;
    switch (row.o_outcome) {
      case 'admitted':
        return {
          outcome: 'admitted',
          createdAt: row.o_created_at!,
          startedAt: row.o_started_at,
          expiresAt: row.o_expires_at,
          key,
        };
      case 'limit':
        return { outcome: 'limit', openSessions: row.o_open_sessions ?? 0, nextFreeInMs: row.o_next_free_ms, key };
      case 'no_key':
        return { outcome: 'key_refused', key };
      default:
        return { outcome: row.o_outcome, key };
    }
  }
}
