import { Injectable } from '@nestjs/common';
import { AppError } from '../../platform/errors/app-error';
import { AppConfig } from '../../config/app-config';
import type { ApiKeyPrincipal, PresentedApiKey } from '../auth';
import { Admission, AdmissionCaller, NewSession, SessionAdmissionRepository } from './session-admission.repository';

export interface AdmittedSession {
  createdAt: Date;
  /** Set for sessions admitted active. */
  startedAt: Date | null;
  /** The secret's expiry, for sessions admitted pending. */
  expiresAt: Date | null;
}

/** When only running sessions hold the slots and none reports an end, ask the client to retry soon. */
const DEFAULT_RETRY_AFTER_MS = 1000;

/**
 * The one gate every new session passes, issued with a secret or opened on a socket with an API key:
 * credit above the project's credit limit (if it has one) and fewer pending-plus-active sessions than
 * the project's concurrency limit (its own, else the configured one). Checked and inserted
 * atomically under the project's row lock, so the limit holds across instances on one PostgreSQL.
 * A presented (not yet checked) key is checked in the same statement.
 */
@Injectable()
export class SessionAdmissionService {
  constructor(
    private readonly admissions: SessionAdmissionRepository,
    private readonly config: AppConfig,
  ) {}

  async admit(
    caller: ApiKeyPrincipal | PresentedApiKey,
    session: NewSession,
    admission: Admission,
  ): Promise<AdmittedSession> {
    const presented = 'hash' in caller ? caller : null;
    const result = await this.admissions.admit(toAdmissionCaller(caller), session, admission, {
      concurrentSessions: this.config.concurrentSessionsLimit,
      maxSessionSeconds: this.config.maxSessionSeconds,
    });
    // Throws for an unknown, revoked or rate-limited key before anything else is said.
    presented?.settle(result.key);
    switch (result.outcome) {
      case 'admitted':
        return {
          createdAt: result.createdAt,
          startedAt: result.startedAt,
          expiresAt: result.expiresAt,
        };
      case 'no_credit':
        throw new AppError('insufficient_credit', 'The project has no credit left; add credit to start sessions');
      case 'limit':
        throw new AppError(
          'concurrency_limit_exceeded',
          `The project already has ${result.openSessions} pending or active sessions (limit ${result.limit})`,
          { retryAfterMs: result.nextFreeInMs ?? DEFAULT_RETRY_AFTER_MS },
        );
      case 'no_project':
        throw new AppError('not_found', 'The project does not exist');
      case 'key_revoked':
        throw new AppError('key_revoked', 'The API key has been revoked');
      case 'key_refused':
        throw new Error('a refused key was settled without a refusal');
    }
  }
}

function toAdmissionCaller(caller: ApiKeyPrincipal | PresentedApiKey): AdmissionCaller {
  return 'hash' in caller
    ? { kind: 'unchecked', keyHash: caller.hash, rate: caller.rate }
    : { kind: 'checked', projectId: caller.projectId, apiKeyId: caller.apiKeyId };
}
