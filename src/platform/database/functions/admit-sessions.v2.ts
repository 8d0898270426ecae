import { revisedFunction } from './database-function';
import { ADMIT_SESSIONS_V1 } from './admit-sessions.v1';

/**
 * As AdmissionBatches' version, with the project's own settings winning over the configured defaults:
 * its concurrency limit (projects.concurrent_sessions_limit, else the admission's session_limit) and
 * its credit limit (refused once the balance is at or below minus credit_limit_micros; never refused
 * when that is NULL), and an admission for a key checked earlier is refused if the key was revoked since
 * (key_revoked). It also returns the limit that applied and the key's bucket size.
 */
export const ADMIT_SESSIONS_V2 = revisedFunction(ADMIT_SESSIONS_V1, [
  // The limit that applied and the key's bucket size, returned.
  [
    `o_key_tokens float8)`,
    `o_key_tokens float8,
               o_key_capacity float8, o_session_limit int)`,
  ],
  // This version was installed without v1's SQL comments; the edits below that delete them keep its text as installed.
  [`  -- What the key check found, by admission: the project and key to admit for, or why not.\n`, ``],
  [
    `  v_tokens float8[] := array_fill(NULL::float8, ARRAY[n]);\n`,
    `  v_tokens float8[] := array_fill(NULL::float8, ARRAY[n]);
  v_capacity float8[] := array_fill(NULL::float8, ARRAY[n]);\n`,
  ],
  [`  v_balance bigint;\n`, `  v_balance bigint;\n  v_credit_limit bigint;\n`],
  [
    `  -- Losing a just-created session to a database crash costs its client one retry (its secret stops
  -- working), so the commit does not wait for the WAL flush while every admission of the project
  -- queues on the lock. Any later durable commit (a redemption, say) flushes this one too.\n`,
    ``,
  ],
  // A key checked earlier, revoked since.
  [
    `      v_project[i] := d.project_id; v_key[i] := d.api_key_id;\n`,
    `      v_project[i] := d.project_id; v_key[i] := d.api_key_id;
      -- A key checked earlier (at a socket's handshake) may have been revoked since.
      IF d.api_key_id IS NOT NULL
         AND EXISTS (SELECT 1 FROM api_keys k WHERE k.id = d.api_key_id AND k.revoked_at IS NOT NULL) THEN
        v_refused[i] := 'key_revoked';
      END IF;\n`,
  ],
  [`v_tokens[i] := t.o_tokens;\n`, `v_tokens[i] := t.o_tokens;\n    v_capacity[i] := t.o_capacity;\n`],
  [
    `o_key_tokens := v_tokens[i];
    o_open_sessions := NULL; o_next_free_ms := NULL;\n`,
    `o_key_tokens := v_tokens[i];
    o_key_capacity := v_capacity[i];
    o_open_sessions := NULL; o_next_free_ms := NULL; o_session_limit := NULL;\n`,
  ],
  // The project's own concurrency and credit limits.
  [
    `    SELECT p.balance_micros INTO v_balance FROM projects p WHERE p.id = o_project_id FOR UPDATE;`,
    `    SELECT p.balance_micros, p.credit_limit_micros, COALESCE(p.concurrent_sessions_limit, d.session_limit)
      INTO v_balance, v_credit_limit, o_session_limit
      FROM projects p WHERE p.id = o_project_id FOR UPDATE;`,
  ],
  [`IF v_balance <= 0 THEN`, `IF v_credit_limit IS NOT NULL AND v_balance <= -v_credit_limit THEN`],
  [`    -- Counting stops at the limit: the common answer needs no more.\n`, ``],
  [`LIMIT d.session_limit) pending)`, `LIMIT o_session_limit) pending)`],
  [`LIMIT d.session_limit) active)`, `LIMIT o_session_limit) active)`],
  [
    `    IF o_open_sessions >= d.session_limit THEN
      -- When the first slot frees: a pending secret lapses, or a session reaches its time limit.\n`,
    `    IF o_open_sessions >= o_session_limit THEN\n`,
  ],
]);
