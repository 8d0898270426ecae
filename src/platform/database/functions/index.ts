import { ADMIT_SESSIONS_V3 } from './admit-sessions.v3';
import { RECORD_AUTH_FAILURE_V1 } from './record-auth-failure.v1';
import { RECORD_METER_BATCHES_V2 } from './record-meter-batches.v2';
import { TAKE_REQUEST_TOKEN_V2 } from './take-request-token.v2';

export { type DatabaseFunction } from './database-function';

/**
 * The version of each function that the migrations leave installed: a migrated database's functions
 * are exactly these (`test/database/database-functions.medium-spec.ts`).
 */
export const CURRENT_FUNCTIONS = [
  ADMIT_SESSIONS_V3,
  RECORD_AUTH_FAILURE_V1,
  RECORD_METER_BATCHES_V2,
  TAKE_REQUEST_TOKEN_V2,
];
