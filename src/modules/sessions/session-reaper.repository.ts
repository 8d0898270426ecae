import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';

/**
 * The reaper's one statement. The heartbeat it reads is written by the instance that holds a
 * session's socket (HeldSessionsRepository.heartbeat, every 5 s).
 */
@Injectable()
export class SessionReaperRepository {
  constructor(private readonly dataSource: DataSource) {}

  /**
   * Closes, as `connection_lost`, every active session whose holder has been silent for `staleSeconds`
   * (a session activated without a heartbeat counts from its start). One statement: when several
   * instances reap at once, each row is claimed by whichever gets its lock first, and the others
   * re-check `status` after it and skip it. The usage stays what was flushed; ended_at is the last
   * sign of life (heartbeat or meter event), never earlier than the start. The rows are locked in id
   * order first, the order meter batches and heartbeats take on the same rows, or one of them deadlocks.
   */
  async closeSilentSessions(staleSeconds: number): Promise<string[]> {
    const [rows] = (await this.dataSource.query(
      `WITH silent AS (
         SELECT id FROM sessions
          WHERE status = 'active'
            AND COALESCE(heartbeat_at, started_at, created_at) < now() - make_interval(secs => $1)
          ORDER BY id FOR NO KEY UPDATE
       )
       UPDATE sessions s SET
         status = 'closed',
         close_reason = 'connection_lost',
         ended_at = GREATEST(
           COALESCE(s.heartbeat_at, s.started_at, s.created_at),
           (SELECT max(m.recorded_at) FROM meter_events m WHERE m.session_id = s.id)
         )
         FROM silent
        WHERE s.id = silent.id
       RETURNING s.id`,
      [staleSeconds],
    )) as [{ id: string }[], number];
    return rows.map((r) => r.id);
  }
}
