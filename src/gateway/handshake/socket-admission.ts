import { Inject, Injectable } from '@nestjs/common';
import type { IncomingMessage } from 'node:http';
import { AppError } from '../../platform/errors/app-error';
import { sha256Hex } from '../../platform/ids';
import { CAPACITY_GATE, CapacityGate, MODEL_IDS, TRANSCRIPTION_MODEL } from '../../engines';
import type { SessionConfig } from '../../session-core';
import { AppConfig } from '../../config/app-config';
import { ConfigError } from '../../config/environment';
import { AuthService, FailedAuthThrottle, isClientSecret, queryCarriesApiKey } from '../../modules/auth';
import { ClientSecretsService } from '../../modules/client-secrets';
import { LifecycleState } from '../../modules/health';
import { ModelCatalog } from '../../modules/models';
import { newSessionId, SessionsService } from '../../modules/sessions';
import { RunningCalls, type RunningCall } from '../connection/running-calls';
import type { Dialect } from '../dialect';
import type { AdmittedSession } from '../connection/admitted-session';
import { compatPorts } from '../connection/compat-ports';
import { InstanceIdentity } from '../connection/instance-identity';
import { coreConfigOf, requestedOf } from '../connection/session-config.mapping';
import { SessionPortsFactory, type SessionPorts } from '../connection/session-ports.factory';
import { ProjectShare, type ShareClaim } from '../connection/project-share';
import { TickScheduler } from '../../platform/clock/tick-scheduler';
import { CallOwnerDialer, RELAYED_BY_HEADER } from '../sideband/call-owner-dialer';
import type WebSocket from 'ws';
import { missingCredentialMessage } from './credential-places';
import { extractSocketCredential, type SocketCredentialResult } from './socket-credentials';

export type { AdmittedSession };

export interface Admitted<Q = unknown> {
  readonly session: AdmittedSession;
  readonly query: Q;
  /** See DialectSocket: fixed at the handshake, and the secret's own. */
  readonly config: SessionConfig | null;
  readonly lock: SessionConfig | null;
  readonly ports: SessionPorts;
  /** The project's claim on this instance's fair share, released when the session is done. */
  readonly claim: ShareClaim;
}

/**
 * The one admission of every socket, before the upgrade: the dialect's query, then the same key
 * checks as REST, plus the client secret, redeemed in one transaction (exactly one socket ever wins
 * it), capacity, and for a socket configured at the handshake, an API key's own session admission
 * (credit, concurrency). Every refusal is an AppError, answered as an HTTP status with the
 * ErrorEnvelope. The order spends a secret only when the socket will serve it. A session id is minted
 * here, once, for an API key; a secret's session has its own.
 */
@Injectable()
export class SocketAdmission {
  private readonly admitted = new WeakMap<IncomingMessage, Admitted>();
  private readonly sidebands = new WeakMap<IncomingMessage, RunningCall>();
  /** Sidebands of calls held elsewhere: the owner's socket, open and paused, for the relay. */
  private readonly relayed = new WeakMap<IncomingMessage, WebSocket>();
  private readonly share: ProjectShare;

  constructor(
    private readonly auth: AuthService,
    private readonly throttle: FailedAuthThrottle,
    private readonly secrets: ClientSecretsService,
    private readonly sessions: SessionsService,
    private readonly lifecycle: LifecycleState,
    private readonly instance: InstanceIdentity,
    private readonly models: ModelCatalog,
    private readonly ports: SessionPortsFactory,
    private readonly config: AppConfig,
    private readonly calls: RunningCalls,
    private readonly owners: CallOwnerDialer,
    @Inject(CAPACITY_GATE) private readonly capacity: CapacityGate,
    clock: TickScheduler,
  ) {
    this.share = new ProjectShare(config.projectStreamsPerInstance, clock);
    for (const [alias, target] of config.realtimeModelAliases) {
      if (!MODEL_IDS.includes(target)) {
        throw new ConfigError(
          `Invalid configuration:\n  REALTIME_MODEL_ALIASES: ${alias}=${target}: not a model of this service (${MODEL_IDS.join(', ')})`,
        );
      }
    }
  }

  async admit<Q>(req: IncomingMessage, dialect: Dialect<Q>): Promise<void> {
    const query = dialect.query(req, { modelAliases: this.config.realtimeModelAliases });
    const callId = dialect.sideband?.(query) ?? null;
    if (callId !== null) return this.admitSideband(req, dialect, callId);
    // A Realtime conversation socket (?model= naming a live model) is configured at the handshake too.
    const requested = dialect.requested?.(query) ?? null;
    const conversation = requested?.type === 'live';
    const transcriptionOnly = dialect.serves === 'transcription' && !conversation;
    if (transcriptionOnly) this.models.checkLanguage(TRANSCRIPTION_MODEL, dialect.language?.(query), 'language');
    const found = extractSocketCredential(req, dialect.credentials);
    // A client already throttled for failed authentications is refused before its credential costs a statement.
    this.throttle.refuseThrottled(
      this.throttle.addressOf(req),
      found.kind === 'found' ? found.credential.value : undefined,
    );
    if (transcriptionOnly) await this.refuseLiveSecret(found);
    const model = conversation ? requested.model : undefined;
    const { session, claim } = await this.authenticate(req, dialect, found, transcriptionOnly, model);
    try {
      this.admitted.set(req, { ...(await this.configured(session, query, dialect)), claim });
    } catch (error) {
      claim.release();
      throw error;
    }
  }

  private async configured<Q>(
    session: AdmittedSession,
    query: Q,
    dialect: Dialect<Q>,
  ): Promise<Omit<Admitted<Q>, 'claim'>> {
    const lock =
      session.kind === 'opened' ? coreConfigOf(session.opened.type, session.opened.model, session.opened.audio) : null;
    if (!dialect.configure)
      return { session, query, config: null, lock, ports: this.ports.create(session, dialect.name) };
    const config = dialect.configure(query, lock);
    // An API key's session is admitted now, with the configuration the dialect resolved; it is then the
    // same case as a redeemed secret: a session active since the handshake.
    const opened =
      session.kind === 'opened'
        ? session
        : {
            kind: 'opened' as const,
            sessionId: session.sessionId,
            opened: await this.sessions.openWithApiKey(session.principal, requestedOf(config), {
              sessionId: session.sessionId,
              instanceId: this.instance.id,
            }),
          };
    const ports = compatPorts(this.ports.create(opened, dialect.name), lock ?? config, this.sessions);
    return { session: opened, query, config, lock, ports };
  }

  /**
   * The sideband: an API key of the call's project joins a call this instance holds. It opens no
   * session (no capacity, share, credit or concurrency is asked); its client events count against the
   * call's control rate. A client secret is refused (the sideband is the app's server's); a call of
   * another project is as unknown as one that does not exist. A call held by another instance is
   * reached there: this one opens the same sideband on the owner (its INSTANCE_URL, recorded with the
   * call) with the client's credential, and relays the two (sideband-relay.ts).
   */
  private async admitSideband(req: IncomingMessage, dialect: Dialect<unknown>, callId: string): Promise<void> {
    const found = extractSocketCredential(req, dialect.credentials);
    this.throttle.refuseThrottled(
      this.throttle.addressOf(req),
      found.kind === 'found' ? found.credential.value : undefined,
    );
    const value = this.credentialOf(req, dialect, found);
    if (isClientSecret(value)) {
      throw new AppError(
        'permission_denied',
        "A call's sideband takes an API key of the call's project (server credentials), not a client secret",
      );
    }
    const principal = await this.auth.verifyApiKey(value, { headers: req.headers });
    const call = this.calls.find(callId);
    if (call !== undefined && call.projectId === principal.projectId) {
      this.sidebands.set(req, call);
      return;
    }
    const running = call === undefined ? await this.sessions.runningCall(principal, callId) : null;
    if (running === null || running.instanceId === this.instance.id)
      throw new AppError('not_found', `No running call ${callId}`, { param: 'call_id' });
    if (running.ownerUrl === null || req.headers[RELAYED_BY_HEADER] !== undefined) {
      throw new AppError(
        'not_found',
        `The call ${callId} runs on another instance of the service, which cannot relay it (INSTANCE_URL is not set there): a sideband must reach the instance that holds the call's media`,
        { param: 'call_id' },
      );
    }
    const owner = await this.owners.dial({ ...running, url: running.ownerUrl }, req.url ?? '', value);
    // A client gone before its upgrade completes never reaches the relay: its owner's socket goes too.
    req.socket.once('close', () => this.relayed.get(req)?.terminate());
    this.relayed.set(req, owner);
  }

  /** The owner's socket of a sideband relayed to the instance that holds its call, handed over once. */
  takeRelayed(req: IncomingMessage): WebSocket | undefined {
    const owner = this.relayed.get(req);
    this.relayed.delete(req);
    return owner;
  }

  /** The call a sideband socket joins, handed to its connection once (undefined: not a sideband). */
  takeSideband(req: IncomingMessage): RunningCall | undefined {
    const call = this.sidebands.get(req);
    this.sidebands.delete(req);
    return call;
  }

  /** What admit() decided for this upgrade, handed to the connection once. */
  take<Q>(req: IncomingMessage): Admitted<Q> {
    const admitted = this.peek<Q>(req);
    if (admitted === undefined) throw new Error('socket connected without an admission');
    this.admitted.delete(req);
    return admitted;
  }

  peek<Q>(req: IncomingMessage): Admitted<Q> | undefined {
    return this.admitted.get(req) as Admitted<Q> | undefined;
  }

  private async authenticate(
    req: IncomingMessage,
    dialect: Dialect<unknown>,
    found: SocketCredentialResult,
    transcriptionOnly: boolean,
    model?: string,
  ): Promise<{ session: AdmittedSession; claim: ShareClaim }> {
    this.lifecycle.assertAcceptingSessions();
    const value = this.credentialOf(req, dialect, found);
    // Before redemption, so a full instance never burns a secret. A live socket picks its model later.
    const verdict = this.capacity.check(model ?? (transcriptionOnly ? TRANSCRIPTION_MODEL : undefined));
    if (!verdict.available) {
      throw new AppError('capacity_exhausted', 'No speech engine capacity on this instance', {
        retryAfterMs: verdict.retryAfterMs,
      });
    }
    if (isClientSecret(value)) {
      // The fair share is asked inside the redemption, so a refusal leaves the secret unused.
      const claimed: { claim?: ShareClaim } = {};
      const opened = await this.secrets.redeem(value, {
        instanceId: this.instance.id,
        admit: (projectId) => (claimed.claim = this.share.claim(projectId)),
      });
      return { session: { kind: 'opened', sessionId: opened.id, opened }, claim: claimed.claim! };
    }
    const principal = await this.auth.verifyApiKey(value, { headers: req.headers });
    const claim = this.share.claim(principal.projectId);
    return { session: { kind: 'deferred', sessionId: newSessionId(), principal }, claim };
  }

  /** The credential's value, or the refusal of a missing, misplaced or malformed one. */
  private credentialOf(req: IncomingMessage, dialect: Dialect<unknown>, found: SocketCredentialResult): string {
    if (queryCarriesApiKey(req.url)) {
      throw new AppError(
        'api_key_in_query',
        'API keys are never accepted in a URL; send the key in a header or use a client secret',
      );
    }
    if (found.kind === 'none') throw new AppError('missing_api_key', missingCredentialMessage(dialect.credentials));
    if (found.kind === 'malformed') throw new AppError('invalid_api_key', found.reason);
    if (found.kind === 'refused') throw new AppError(found.code, found.reason);
    return found.credential.value;
  }

  /** A secret for a live session is refused by a transcription socket before it is spent. */
  private async refuseLiveSecret(found: SocketCredentialResult): Promise<void> {
    if (found.kind !== 'found' || !isClientSecret(found.credential.value)) return;
    if ((await this.sessions.typeBySecretHash(sha256Hex(found.credential.value))) === 'live') {
      throw new AppError(
        'invalid_parameter',
        'This client secret opens a live session; this socket serves transcription sessions. Use a secret from POST /v1/realtime/client_secrets (or session.type "transcription"), or open it at session.live_url.',
        { param: 'token' },
      );
    }
  }
}
