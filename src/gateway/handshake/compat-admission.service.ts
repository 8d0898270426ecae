import { Injectable, Logger } from '@nestjs/common';
import type { IncomingMessage } from 'node:http';
import { AppError } from '../../platform/errors/app-error';
import { sha256Hex } from '../../platform/ids';
import type { SessionConfig } from '../../session-core/index';
import { isClientSecret } from '../../modules/auth';
import { extractSocketCredential } from './socket-credentials';
import { SessionsService } from '../../modules/sessions';
import { InstanceIdentity } from '../connection/instance-identity';
import { requestedOf } from '../connection/session-config.mapping';
import { SessionPortsFactory, type SessionPorts } from '../connection/session-ports.factory';
import { SocketAdmission, type Admitted } from './socket-admission.service';
import { ModelCatalog } from '../../modules/models';
import { compatPorts } from '../connection/compat-ports';
import { TRANSCRIPTION_MODEL } from '../../session-core';
import { CompatSessionsRepository } from '../connection/compat-sessions.repository';

/** What a compatibility dialect decides at its handshake. */
export interface CompatDialect<T> {
  readonly name: 'realtime' | 'listen';
  /** Validates the upgrade's query; throws AppError (`invalid_parameter`, HTTP 400) to refuse. */
  parse(req: IncomingMessage): T;
  /** The language the handshake asks for, if any (checked against the model's languages). */
  language?(request: T): string | null;
  /** The session's configuration: what the client asked for over the secret's (null for an API key). */
  configure(request: T, lock: SessionConfig | null): SessionConfig;
}

export interface CompatAdmitted<T> {
  readonly sessionId: string;
  readonly request: T;
  readonly config: SessionConfig;
  readonly ports: SessionPorts;
}

/**
 * The handshake of the Realtime and Deepgram sockets. They have no start event to refuse, so
 * everything that can fail before the first frame fails here, as an HTTP status the SDKs do not
 * retry: the query, a secret for a live session, then the shared admission (keys, single-use
 * secrets, capacity), then, for an API key, the session's own admission (credit, concurrency).
 * The order spends a secret only when the socket will serve it.
 */
@Injectable()
export class CompatAdmission {
  private readonly logger = new Logger('CompatAdmission');
  private readonly admitted = new WeakMap<IncomingMessage, CompatAdmitted<unknown>>();

  constructor(
    private readonly admission: SocketAdmission,
    private readonly sessions: SessionsService,
    private readonly portsFactory: SessionPortsFactory,
    private readonly repository: CompatSessionsRepository,
    private readonly instance: InstanceIdentity,
    private readonly models: ModelCatalog,
  ) {}

  async admit<T>(req: IncomingMessage, dialect: CompatDialect<T>): Promise<void> {
    const request = dialect.parse(req);
    this.models.checkLanguage(TRANSCRIPTION_MODEL, dialect.language?.(request), 'language');
    await this.refuseLiveSecret(req, dialect.name);
    await this.admission.admit(req, dialect.name);
    const found = this.admission.take(req);
    const { opened, stored, config } = await this.open(found, (lock) => dialect.configure(request, lock));
    const ports = compatPorts(this.portsFactory.create(opened, dialect.name), stored, this.repository, this.logger);
    this.admitted.set(req, { sessionId: opened.sessionId, request, config, ports });
  }

  /** What admit() decided for this upgrade, handed to the connection once. */
  take<T>(req: IncomingMessage): CompatAdmitted<T> {
    const admitted = this.peek<T>(req);
    if (admitted === undefined) throw new Error('socket connected without an admission');
    this.admitted.delete(req);
    return admitted;
  }

  peek<T>(req: IncomingMessage): CompatAdmitted<T> | undefined {
    return this.admitted.get(req) as CompatAdmitted<T> | undefined;
  }

  private async refuseLiveSecret(req: IncomingMessage, dialect: 'realtime' | 'listen'): Promise<void> {
    const found = extractSocketCredential(req, dialect);
    if (found.kind !== 'found' || !isClientSecret(found.credential.value)) return;
    const type = await this.repository.secretSessionType(sha256Hex(found.credential.value));
    if (type === 'live') {
      throw new AppError(
        'invalid_parameter',
        'This client secret opens a live session; this socket serves transcription sessions. Use a secret from POST /v1/realtime/client_secrets (or session.type "transcription"), or open it at session.live_url.',
        { param: 'token' },
      );
    }
  }

  /**
   * An API-key session is admitted here, with the configuration the dialect resolved. For its
   * ports it is then the same case as a redeemed secret: a session active since the handshake.
   */
  private async open(
    found: Admitted,
    configure: (lock: SessionConfig | null) => SessionConfig,
  ): Promise<{ opened: Extract<Admitted, { kind: 'client_secret' }>; stored: SessionConfig; config: SessionConfig }> {
    if (found.kind === 'client_secret') return { opened: found, stored: found.lock, config: configure(found.lock) };
    const config = configure(null);
    const session = await this.sessions.openWithApiKey(found.principal, requestedOf(config), {
      sessionId: found.sessionId,
      instanceId: this.instance.id,
    });
    return {
      opened: { kind: 'client_secret', sessionId: session.id, lock: config, opened: session },
      stored: config,
      config,
    };
  }
}
