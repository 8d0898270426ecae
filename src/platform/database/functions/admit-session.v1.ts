import { databaseFunction } from './database-function';

/** Admits one session (SessionAdmission); replaced by continuum_admit_sessions() (AdmissionBatches). */
export const ADMIT_SESSION_V1 = databaseFunction(
  'continuum_admit_session(varchar, varchar, varchar, varchar, varchar, varchar, varchar, varchar, varchar, int, jsonb, jsonb, int, int, varchar, varchar)',
  `
CREATE FUNCTION continuum_admit_session(
  p_session_id varchar, p_project_id varchar, p_api_key_id varchar, p_type varchar, p_model varchar,
  p_status varchar, p_pool varchar, p_region varchar, p_instance_id varchar, p_ttl_seconds int,
  p_metadata jsonb, p_audio jsonb, p_max_session_seconds int, p_limit int,
  p_secret_id varchar, p_secret_hash varchar)
RETURNS TABLE (o_outcome text, o_open_sessions int, o_next_free_ms int,
               o_created_at timestamptz, o_started_at timestamptz, o_expires_at timestamptz)
LANGUAGE plpgsql VOLATILE AS $fn$
DECLARE
  v_balance bigint;
BEGIN
  SELECT p.balance_micros INTO v_balance FROM projects p WHERE p.id = p_project_id FOR UPDATE;
  IF NOT FOUND THEN
    o_outcome := 'no_project'; RETURN NEXT; RETURN;
  END IF;
  IF v_balance <= 0 THEN
    o_outcome := 'no_credit'; RETURN NEXT; RETURN;
  END IF;
  -- Counting stops at the limit: the common answer needs no more.
  SELECT (SELECT count(*) FROM (SELECT 1 FROM sessions s
                                 WHERE s.project_id = p_project_id AND s.status = 'pending' AND s.expires_at > now()
                                 LIMIT p_limit) pending)
       + (SELECT count(*) FROM (SELECT 1 FROM sessions s
                                 WHERE s.project_id = p_project_id AND s.status = 'active'
                                 LIMIT p_limit) active)
    INTO o_open_sessions;
  IF o_open_sessions >= p_limit THEN
    -- When the first slot frees: a pending secret lapses, or a session reaches its time limit.
    SELECT ceil(extract(epoch FROM min(f.frees_at) - now()) * 1000)::int INTO o_next_free_ms FROM (
      SELECT CASE WHEN s.status = 'pending' THEN s.expires_at
                  ELSE s.started_at + make_interval(secs => p_max_session_seconds) END AS frees_at
        FROM sessions s
       WHERE s.project_id = p_project_id
         AND ((s.status = 'pending' AND s.expires_at > now()) OR s.status = 'active')) f
     WHERE f.frees_at > now();
    o_outcome := 'limit'; RETURN NEXT; RETURN;
  END IF;
  -- Losing a just-created session to a database crash costs its client one retry (its secret stops
  -- working), so the commit does not wait for the WAL flush while every admission of the project
  -- queues on the lock. Any later durable commit (a redemption, say) flushes this one too.
  PERFORM set_config('synchronous_commit', 'off', true);
  INSERT INTO sessions (id, project_id, api_key_id, type, model, status, pool, region,
                        started_at, heartbeat_at, instance_id, expires_at, metadata, audio)
  VALUES (p_session_id, p_project_id, p_api_key_id, p_type, p_model, p_status, p_pool, p_region,
          CASE WHEN p_status = 'active' THEN now() END, CASE WHEN p_status = 'active' THEN now() END,
          p_instance_id, now() + make_interval(secs => p_ttl_seconds), p_metadata, p_audio)
  RETURNING sessions.created_at, sessions.started_at, sessions.expires_at
       INTO o_created_at, o_started_at, o_expires_at;
  IF p_secret_id IS NOT NULL THEN
    INSERT INTO client_secrets (id, session_id, secret_hash, expires_at, created_at)
    VALUES (p_secret_id, p_session_id, p_secret_hash, o_expires_at, o_created_at);
  END IF;
  o_outcome := 'admitted'; RETURN NEXT;
END
$fn$`,
);
