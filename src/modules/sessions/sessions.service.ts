import { Injectable, Logger } from '@nestjs/common';
import { AppError } from '../../platform/errors/app-error';
import { isCallId, isSessionId, newSessionId } from './session-id';
import { AppConfig } from '../../config/app-config';
import type { ApiKeyPrincipal } from '../auth';
import { ModelCatalog } from '../models';
import { SessionResponseDto, SessionListResponseDto, toSessionResponse } from './dto/session.dto';
import type { ListSessionsQueryDto } from './dto/list-sessions.dto';
import type { CloseReason, SessionTransport, SessionType } from './entities/session.entity';
import type { OpenedSession } from './opened-session';
import { SessionAdmissionService } from './session-admission.service';
import { RequestedSessionConfig, resolveSessionConfig } from './session-config';
import { decodeCursor, encodeCursor } from './session-cursor';
import { HeldSessionsRepository } from './held-sessions.repository';
import { SessionEnds } from './session-ends';
import { EngineSettings, SessionsRepository } from './sessions.repository';

export interface OpenWithApiKeyOptions {
  /** The id the socket already gave its session machine; a new one is made otherwise. */
  sessionId?: string;
  /** The instance that holds the socket (recorded for DELETE and the orphan reaper). */
  instanceId?: string | null;
  metadata?: Record<string, string>;
}

/** Where a running call is held, for a sideband that reached another instance. */
export interface RunningCallOwner {
  sessionId: string;
  callId: string;
  instanceId: string | null;
  ownerUrl: string | null;
}

const DEFAULT_PAGE = 20;

@Injectable()
export class SessionsService {
  private readonly logger = new Logger(SessionsService.name);

  constructor(
    private readonly sessions: SessionsRepository,
    private readonly admission: SessionAdmissionService,
    private readonly models: ModelCatalog,
    private readonly config: AppConfig,
    private readonly held: HeldSessionsRepository,
    private readonly ends: SessionEnds,
  ) {}

  async list(principal: ApiKeyPrincipal, query: ListSessionsQueryDto): Promise<SessionListResponseDto> {
    const limit = query.limit ?? DEFAULT_PAGE;
    const after = query.cursor !== undefined ? decodeCursor(query.cursor) : undefined;
    const rows = await this.sessions.list(
      principal.projectId,
      { fromSeconds: query.from, toSeconds: query.to, status: query.status, after },
      limit + 1,
    );
    const page = rows.slice(0, limit);
    const hasMore = rows.length > limit;
    return {
      object: 'list',
      data: page.map((row) => toSessionResponse(row.session, row.status)),
      has_more: hasMore,
      next_cursor: hasMore ? encodeCursor(page[page.length - 1].cursor) : null,
    };
  }

  /** By the session's id or, for a call, by its call id (`rtc_…`). */
  async get(principal: ApiKeyPrincipal, id: string): Promise<SessionResponseDto> {
    if (!isSessionId(id) && !isCallId(id)) throw notFound(id);
    const found = isCallId(id)
      ? await this.sessions.findVisibleByCallId(principal.projectId, id)
      : await this.sessions.findVisible(principal.projectId, id);
    if (!found) throw notFound(id);
    return toSessionResponse(found.session, found.status);
  }

  /**
   * Hides the session from get and list; its usage stays billed and exported. A pending session's
   * secret is revoked; an active session is ended by the holder of its socket (SessionEnds), after the commit.
   */
  async delete(principal: ApiKeyPrincipal, id: string): Promise<void> {
    if (!isSessionId(id)) throw notFound(id);
    const hidden = await this.sessions.hideVisible(principal.projectId, id);
    if (!hidden) throw notFound(id);
    if (hidden.status !== 'active') return;
    try {
      await this.ends.request({ id, projectId: principal.projectId, instanceId: hidden.instanceId });
    } catch (error) {
      // The session is hidden already; a session that is not ended here still ends at its time limit.
      this.logger.error({ err: error, sessionId: id }, 'could not hand the end of a deleted session to its socket');
    }
  }

  /**
   * Ends a running call (a session whose media arrives on another transport: a carrier's stream, WebRTC)
   * by its call id or its session id, wherever it runs, as DELETE ends a socket's session but keeping it
   * listed: its holder closes it `close_requested` and closes the carrier's stream. 404 for a session that
   * is not a running call of the project.
   */
  async hangUp(principal: ApiKeyPrincipal, id: string): Promise<void> {
    if (!isSessionId(id) && !isCallId(id)) throw notFound(id);
    const found = isCallId(id)
      ? await this.sessions.findVisibleByCallId(principal.projectId, id)
      : await this.sessions.findVisible(principal.projectId, id);
    if (!found || found.session.callId === null || found.status !== 'active') throw notFound(id);
    const { session } = found;
    await this.ends.request({ id: session.id, projectId: session.projectId, instanceId: session.instanceId });
  }

  /**
   * For a socket authenticated with an API key (no client secret): resolves the requested
   * configuration and admits the session as `active` under the same credit and concurrency checks
   * as a secret. A socket passes the id its admission minted. Throws AppError: invalid_parameter,
   * insufficient_credit, concurrency_limit_exceeded.
   */
  async openWithApiKey(
    principal: ApiKeyPrincipal,
    requested: RequestedSessionConfig | undefined,
    options: OpenWithApiKeyOptions = {},
  ): Promise<OpenedSession> {
    const resolved = resolveSessionConfig(requested, this.models);
    const session = {
      id: options.sessionId ?? newSessionId(),
      type: resolved.type,
      model: resolved.model,
      pool: this.config.pool,
      region: this.config.region,
      metadata: options.metadata ?? {},
      audio: resolved.audio,
    };
    const admitted = await this.admission.admit(principal, session, {
      status: 'active',
      instanceId: options.instanceId ?? null,
    });
    return {
      ...session,
      projectId: principal.projectId,
      apiKeyId: principal.apiKeyId,
      startedAt: admitted.startedAt ?? admitted.createdAt,
    };
  }

  /** Records the end of an active session; false when it was not active (already closed, or unknown). */
  /** `endedAt`: when it ended, if that was earlier than now (a close written back after an outage). */
  markClosed(sessionId: string, reason: CloseReason, endedAt?: Date): Promise<boolean> {
    return this.sessions.markClosed(sessionId, reason, endedAt);
  }

  /** See HeldSessionsRepository.heartbeat: the sessions whose sockets the instance must now end. */
  heartbeat(instanceId: string, sessionIds: readonly string[]): Promise<{ deleted: string[]; keyRevoked: string[] }> {
    return this.held.heartbeat(instanceId, sessionIds);
  }

  /** The type of the session a client secret would open, without spending it (null: no such secret). */
  typeBySecretHash(secretHash: string): Promise<SessionType | null> {
    return this.sessions.typeBySecretHash(secretHash);
  }

  /** Set by a transport other than the dialect's socket (a call, a carrier's stream, a batch request) once admitted. */
  /** A call is recorded with where the other instances reach this one (INSTANCE_URL), for its sideband. */
  recordTransport(sessionId: string, transport: SessionTransport, callId: string | null = null): Promise<void> {
    const ownerUrl = callId !== null ? this.config.instanceUrl : null;
    return this.sessions.recordTransport(sessionId, transport, callId, ownerUrl);
  }

  /**
   * A running call of the project, by its call id or session id, as another instance sees it: the
   * instance that holds it and where that one is reached (null: it has no INSTANCE_URL). Null when
   * there is no such running call.
   */
  async runningCall(principal: ApiKeyPrincipal, id: string): Promise<RunningCallOwner | null> {
    if (!isSessionId(id) && !isCallId(id)) return null;
    const found = isCallId(id)
      ? await this.sessions.findVisibleByCallId(principal.projectId, id)
      : await this.sessions.findVisible(principal.projectId, id);
    if (!found || found.session.callId === null || found.status !== 'active') return null;
    const { session } = found;
    return {
      sessionId: session.id,
      callId: session.callId!,
      instanceId: session.instanceId,
      ownerUrl: session.callOwnerUrl,
    };
  }

  /** So that GET /v1/sessions/{id} shows the language and turn detection the socket's client chose. */
  recordEngineSettings(sessionId: string, settings: EngineSettings): Promise<void> {
    return this.sessions.recordEngineSettings(sessionId, settings);
  }
}

const notFound = (id: string) =>
  new AppError('not_found', isSessionId(id) || isCallId(id) ? `No session ${id}` : 'No session has that id');
