import { databaseFunction } from './database-function';

/**
 * As OperatorControls' version, with a client secret's realtime session configuration (instructions,
 * tools…: `secret_realtime_session`, NULL for every other secret) stored with the secret in the same
 * insert, so a secret never exists without the configuration it was issued with.
 */
export const ADMIT_SESSIONS_V3 = databaseFunction(
  'continuum_admit_sessions(jsonb)',
  `
CREATE FUNCTION continuum_admit_sessions(p_admissions jsonb)
RETURNS TABLE (o_index int, o_outcome text, o_open_sessions int, o_next_free_ms int,
               o_created_at timestamptz, o_started_at timestamptz, o_expires_at timestamptz,
               o_project_id varchar, o_api_key_id varchar,
               o_key_revoked boolean, o_key_allowed boolean, o_key_tokens float8,
               o_key_capacity float8, o_session_limit int)
LANGUAGE plpgsql VOLATILE AS $fn$
DECLARE
  a continuum_admission[] := ARRAY(SELECT jsonb_populate_recordset(NULL::continuum_admission, p_admissions));
  n int := cardinality(a);
  v_project varchar[] := array_fill(NULL::varchar, ARRAY[n]);
  v_key varchar[] := array_fill(NULL::varchar, ARRAY[n]);
  v_refused text[] := array_fill(NULL::text, ARRAY[n]);
  v_revoked boolean[] := array_fill(NULL::boolean, ARRAY[n]);
  v_allowed boolean[] := array_fill(NULL::boolean, ARRAY[n]);
  v_tokens float8[] := array_fill(NULL::float8, ARRAY[n]);
  v_capacity float8[] := array_fill(NULL::float8, ARRAY[n]);
  d continuum_admission;
  t record;
  i int;
  v_balance bigint;
  v_credit_limit bigint;
BEGIN
  PERFORM set_config('synchronous_commit', 'off', true);
  FOR i IN SELECT u.ordinality FROM unnest(a) WITH ORDINALITY u ORDER BY u.key_hash, u.ordinality LOOP
    d := a[i];
    IF d.key_hash IS NULL THEN
      v_project[i] := d.project_id; v_key[i] := d.api_key_id;
      -- A key checked earlier (at a socket's handshake) may have been revoked since.
      IF d.api_key_id IS NOT NULL
         AND EXISTS (SELECT 1 FROM api_keys k WHERE k.id = d.api_key_id AND k.revoked_at IS NOT NULL) THEN
        v_refused[i] := 'key_revoked';
      END IF;
      CONTINUE;
    END IF;
    SELECT * INTO t FROM continuum_take_request_token(d.key_hash, d.rate_capacity, d.rate_refill_per_second);
    IF NOT FOUND THEN
      v_refused[i] := 'no_key'; CONTINUE;
    END IF;
    v_project[i] := t.o_project_id; v_key[i] := t.o_id;
    v_revoked[i] := t.o_revoked; v_allowed[i] := t.o_allowed; v_tokens[i] := t.o_tokens;
    v_capacity[i] := t.o_capacity;
    IF t.o_revoked OR NOT t.o_allowed THEN
      v_refused[i] := 'key_refused';
    END IF;
  END LOOP;
  FOR i IN SELECT u.ordinality FROM unnest(v_project) WITH ORDINALITY u ORDER BY u.u, u.ordinality LOOP
    d := a[i];
    o_index := i - 1; o_project_id := v_project[i]; o_api_key_id := v_key[i];
    o_key_revoked := v_revoked[i]; o_key_allowed := v_allowed[i]; o_key_tokens := v_tokens[i];
    o_key_capacity := v_capacity[i];
    o_open_sessions := NULL; o_next_free_ms := NULL; o_session_limit := NULL;
    o_created_at := NULL; o_started_at := NULL; o_expires_at := NULL;
    IF v_refused[i] IS NOT NULL THEN
      o_outcome := v_refused[i]; RETURN NEXT; CONTINUE;
    END IF;
    SELECT p.balance_micros, p.credit_limit_micros, COALESCE(p.concurrent_sessions_limit, d.session_limit)
      INTO v_balance, v_credit_limit, o_session_limit
      FROM projects p WHERE p.id = o_project_id FOR UPDATE;
    IF NOT FOUND THEN
      o_outcome := 'no_project'; RETURN NEXT; CONTINUE;
    END IF;
    IF v_credit_limit IS NOT NULL AND v_balance <= -v_credit_limit THEN
      o_outcome := 'no_credit'; RETURN NEXT; CONTINUE;
    END IF;
    SELECT (SELECT count(*) FROM (SELECT 1 FROM sessions s
                                   WHERE s.project_id = o_project_id AND s.status = 'pending' AND s.expires_at > now()
                                   LIMIT o_session_limit) pending)
         + (SELECT count(*) FROM (SELECT 1 FROM sessions s
                                   WHERE s.project_id = o_project_id AND s.status = 'active'
                                   LIMIT o_session_limit) active)
      INTO o_open_sessions;
    IF o_open_sessions >= o_session_limit THEN
      SELECT ceil(extract(epoch FROM min(f.frees_at) - now()) * 1000)::int INTO o_next_free_ms FROM (
        SELECT CASE WHEN s.status = 'pending' THEN s.expires_at
                    ELSE s.started_at + make_interval(secs => d.max_session_seconds) END AS frees_at
          FROM sessions s
         WHERE s.project_id = o_project_id
           AND ((s.status = 'pending' AND s.expires_at > now()) OR s.status = 'active')) f
       WHERE f.frees_at > now();
      o_outcome := 'limit'; RETURN NEXT; CONTINUE;
    END IF;
    INSERT INTO sessions (id, project_id, api_key_id, type, model, status, pool, region,
                          started_at, heartbeat_at, instance_id, expires_at, metadata, audio)
    VALUES (d.session_id, o_project_id, o_api_key_id, d.type, d.model, d.status, d.pool, d.region,
            CASE WHEN d.status = 'active' THEN now() END, CASE WHEN d.status = 'active' THEN now() END,
            d.instance_id, now() + make_interval(secs => d.ttl_seconds), d.metadata, d.audio)
    RETURNING sessions.created_at, sessions.started_at, sessions.expires_at
         INTO o_created_at, o_started_at, o_expires_at;
    IF d.secret_id IS NOT NULL THEN
      INSERT INTO client_secrets (id, session_id, secret_hash, expires_at, created_at, realtime_session)
      VALUES (d.secret_id, d.session_id, d.secret_hash, o_expires_at, o_created_at, d.secret_realtime_session);
    END IF;
    o_outcome := 'admitted'; RETURN NEXT;
  END LOOP;
END
$fn$`,
);
