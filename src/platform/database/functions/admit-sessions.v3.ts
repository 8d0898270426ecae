import { revisedFunction } from './database-function';
import { ADMIT_SESSIONS_V2 } from './admit-sessions.v2';

/**
 * As OperatorControls' version, with a client secret's realtime session configuration (instructions,
 * tools…: `secret_realtime_session`, NULL for every other secret) stored with the secret in the same
 * insert, so a secret never exists without the configuration it was issued with.
 */
export const ADMIT_SESSIONS_V3 = revisedFunction(ADMIT_SESSIONS_V2, [
  [
    `
      INSERT INTO client_secrets (id, session_id, secret_hash, expires_at, created_at)
      VALUES (d.secret_id, d.session_id, d.secret_hash, o_expires_at, o_created_at);`,
    `
      INSERT INTO client_secrets (id, session_id, secret_hash, expires_at, created_at, realtime_session)
      VALUES (d.secret_id, d.session_id, d.secret_hash, o_expires_at, o_created_at, d.secret_realtime_session);`,
  ],
]);
