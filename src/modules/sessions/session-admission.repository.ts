import { Injectable, Logger } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { poolSizeOf } from '../../platform/database/data-source-options';
import { StatementBatcher } from '../../platform/database/statement-batcher';
import type { RequestRate } from '../auth';
import type { KeyCheck } from '../auth';
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
  | {
      status: 'pending';
      secret: { id: string; hash: string; ttlSeconds: number; realtimeSession?: Record<string, unknown> | null };
    }
  | { status: 'active'; instanceId: string | null };

export type AdmissionOutcome =
  | { outcome: 'admitted'; createdAt: Date; startedAt: Date | null; expiresAt: Date | null }
  /** The unchecked key is unknown (`key` null), or revoked or out of tokens: nothing was admitted. */
  | { outcome: 'key_refused' }
  /** A key checked before (a socket's handshake) was revoked since. */
  | { outcome: 'no_project' | 'no_credit' | 'key_revoked' }
  /** `nextFreeInMs`: until the first open session stops counting (null when none will by itself). */
  | { outcome: 'limit'; openSessions: number; limit: number; nextFreeInMs: number | null };

/** For an unchecked key, `key` is what the database found (null: no such key). */
export type AdmissionResult = AdmissionOutcome & { key: KeyCheck | null };

/** One element of continuum_admit_sessions()'s argument (the type continuum_admission). */
interface AdmissionInput {
  key_hash: string | null;
  rate_capacity: number | null;
  rate_refill_per_second: number | null;
  session_id: string;
  project_id: string | null;
  api_key_id: string | null;
  type: string;
  model: string;
  status: string;
  pool: string;
  region: string;
  instance_id: string | null;
  ttl_seconds: number | null;
  metadata: Record<string, string>;
  audio: SessionAudioConfig;
  max_session_seconds: number;
  session_limit: number;
  secret_id: string | null;
  secret_hash: string | null;
  secret_realtime_session: Record<string, unknown> | null;
}

interface AdmissionRow {
  o_index: number;
  o_outcome: 'admitted' | 'no_key' | 'key_refused' | 'key_revoked' | 'no_project' | 'no_credit' | 'limit';
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
  o_key_capacity: number | null;
  /** The concurrency limit that applied: the project's own or the admission's default. */
  o_session_limit: number | null;
}

/** Enough to carry a burst to the database in a few statements, few enough to hold its locks briefly. */
const MAX_BATCH = 20;

@Injectable()
export class SessionAdmissionRepository {
  private readonly logger = new Logger(SessionAdmissionRepository.name);
  private readonly batcher: StatementBatcher<AdmissionInput, AdmissionRow>;

  constructor(private readonly dataSource: DataSource) {
    // Half the pool: admissions that find those busy wait and go together, and the rest of the pool
    // stays free for everything else.
    const statements = Math.max(1, Math.floor(poolSizeOf(dataSource.options) / 2));
    this.batcher = new StatementBatcher(
      (inputs) => this.admitBatch(inputs),
      statements,
      MAX_BATCH,
      // Through the error serializer: the statement's name and SQLSTATE, never its parameters.
      (error, size) => this.logger.warn({ err: error, size }, 'a batch of admissions failed, retrying them one by one'),
    );
  }

  /**
   * continuum_admit_sessions() (migrations SessionAdmission, AdmissionBatches) checks an unchecked key,
   * locks the project's row, checks credit and the concurrency limit and inserts the session (and its
   * secret) under that lock, for every admission of a batch in one statement. Admissions of one
   * project queue only for the database's own work, on every instance sharing the database.
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
    const row = await this.batcher.submit({
      key_hash: unchecked?.keyHash ?? null,
      rate_capacity: unchecked?.rate.capacity ?? null,
      rate_refill_per_second: unchecked?.rate.refillPerSecond ?? null,
      session_id: session.id,
      project_id: checked?.projectId ?? null,
      api_key_id: checked?.apiKeyId ?? null,
      type: session.type,
      model: session.model,
      status: admission.status,
      pool: session.pool,
      region: session.region,
      instance_id: pending ? null : admission.instanceId,
      ttl_seconds: pending ? admission.secret.ttlSeconds : null,
      metadata: session.metadata,
      audio: session.audio,
      max_session_seconds: limits.maxSessionSeconds,
      session_limit: limits.concurrentSessions,
      secret_id: pending ? admission.secret.id : null,
      secret_hash: pending ? admission.secret.hash : null,
      secret_realtime_session: pending ? (admission.secret.realtimeSession ?? null) : null,
    });
    const key: KeyCheck | null =
      unchecked && row.o_outcome !== 'no_key'
        ? {
            id: row.o_api_key_id!,
            projectId: row.o_project_id!,
            revoked: row.o_key_revoked!,
            allowed: row.o_key_allowed!,
            tokens: row.o_key_tokens!,
            capacity: row.o_key_capacity!,
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
        return {
          outcome: 'limit',
          openSessions: row.o_open_sessions ?? 0,
          limit: row.o_session_limit ?? limits.concurrentSessions,
          nextFreeInMs: row.o_next_free_ms,
          key,
        };
      case 'no_key':
        return { outcome: 'key_refused', key };
      default:
        return { outcome: row.o_outcome, key };
    }
  }

  /** The function answers in lock order; callers get their rows back in their own order. */
  private async admitBatch(inputs: AdmissionInput[]): Promise<AdmissionRow[]> {
    const rows: AdmissionRow[] = await this.dataSource.query('SELECT * FROM continuum_admit_sessions($1)', [
      JSON.stringify(inputs),
    ]);
    const byIndex = new Array<AdmissionRow>(inputs.length);
    for (const row of rows) byIndex[row.o_index] = row;
    return byIndex.filter(Boolean);
  }
}
