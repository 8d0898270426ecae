import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { SessionAudioConfig, SessionType } from './entities/session.entity';

export interface NewSession {
  id: string;
  projectId: string;
  apiKeyId: string | null;
  type: SessionType;
  model: string;
  pool: string;
  region: string;
  metadata: Record<string, string>;
  audio: SessionAudioConfig;
}

/** A pending session is issued with its secret; an active one is opened on a socket right away. */
export type Admission =
  | { status: 'pending'; secret: { id: string; hash: string; ttlSeconds: number } }
  | { status: 'active'; instanceId: string | null };

export type AdmissionOutcome =
  | { outcome: 'admitted'; createdAt: Date; startedAt: Date | null; expiresAt: Date | null }
  | { outcome: 'no_project' | 'no_credit' }
  /** `nextFreeInMs`: until the first open session stops counting (null when none will by itself). */
  | { outcome: 'limit'; openSessions: number; nextFreeInMs: number | null };

interface AdmissionRow {
  o_outcome: AdmissionOutcome['outcome'];
  o_open_sessions: number | null;
  o_next_free_ms: number | null;
  o_created_at: Date | null;
  o_started_at: Date | null;
  o_expires_at: Date | null;
}

@Injectable()
export class SessionAdmissionRepository {
  constructor(private readonly dataSource: DataSource) {}

  /**
   * One statement: continuum_admit_session() (migration SessionAdmission) locks the project's row,
   * checks credit and the concurrency limit and inserts the session (and its secret) under that lock.
   * One round trip, so admissions of one project queue only for the database's own work, on every
   * instance sharing the database.
   */
  async admit(
    session: NewSession,
    admission: Admission,
    limits: { concurrentSessions: number; maxSessionSeconds: number },
  ): Promise<AdmissionOutcome> {
    const pending = admission.status === 'pending';
    const rows: AdmissionRow[] = await this.dataSource.query(
      'SELECT * FROM continuum_admit_session($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16)',
      [
        session.id,
        session.projectId,
        session.apiKeyId,
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
    switch (row.o_outcome) {
      case 'admitted':
        return {
          outcome: 'admitted',
          createdAt: row.o_created_at!,
          startedAt: row.o_started_at,
          expiresAt: row.o_expires_at,
        };
      case 'limit':
        return { outcome: 'limit', openSessions: row.o_open_sessions ?? 0, nextFreeInMs: row.o_next_free_ms };
      default:
        return { outcome: row.o_outcome };
    }
  }
}
