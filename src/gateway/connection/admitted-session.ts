import type { ApiKeyPrincipal } from '../../modules/auth';
import type { OpenedSession } from '../../modules/sessions';

/** Whose session the socket runs, as far as the handshake decided it. */
export type AdmittedSession =
  /** Active since the handshake: a redeemed client secret, or an API key on a socket configured there. */
  | { kind: 'opened'; sessionId: string; opened: OpenedSession }
  /** An API key on a socket that picks its session later: admitted at the start event (the live protocol). */
  | { kind: 'deferred'; sessionId: string; principal: ApiKeyPrincipal };

/** The project the session is of. */
export const projectOf = (session: AdmittedSession): string =>
  session.kind === 'opened' ? session.opened.projectId : session.principal.projectId;
