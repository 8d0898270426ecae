import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';

/** The rows of the sessions this instance holds sockets for. */
@Injectable()
export class HeldSessionsRepository {
  constructor(private readonly dataSource: DataSource) {}

  /**
   * Says "still alive" for every held session in one statement (the reaper on any instance closes
   * sessions whose holder went silent), and returns those whose sockets must now be ended here:
   * hidden by a DELETE, or opened with an API key that was revoked since (by any instance or the CLI).
   * The rows are locked in id order first, as meter batches lock them (continuum_record_meter_batches):
   * in the scan's order (physical, with hundreds of ids) the two deadlocked on overlapping sessions.
   */
  async heartbeat(
    instanceId: string,
    sessionIds: readonly string[],
  ): Promise<{ deleted: string[]; keyRevoked: string[] }> {
    if (sessionIds.length === 0) return { deleted: [], keyRevoked: [] };
    const [rows] = (await this.dataSource.query(
      `WITH held AS (
         SELECT id FROM sessions WHERE id = ANY($2) AND status = 'active' ORDER BY id FOR NO KEY UPDATE
       )
       UPDATE sessions s SET instance_id = $1, heartbeat_at = now()
         FROM held
        WHERE s.id = held.id
       RETURNING s.id, s.deleted_at IS NOT NULL AS deleted,
                 EXISTS (SELECT 1 FROM api_keys k WHERE k.id = s.api_key_id AND k.revoked_at IS NOT NULL) AS key_revoked`,
      [instanceId, sessionIds],
    )) as [{ id: string; deleted: boolean; key_revoked: boolean }[], number];
    return {
      deleted: rows.filter((r) => r.deleted).map((r) => r.id),
      keyRevoked: rows.filter((r) => !r.deleted && r.key_revoked).map((r) => r.id),
    };
  }
}
