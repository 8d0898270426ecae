import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';

/** The rows of the sessions this instance holds sockets for. */
@Injectable()
export class HeldSessionsRepository {
  constructor(private readonly dataSource: DataSource) {}

  /**
   * Says "still alive" for every held session in one statement (the reaper on any instance closes
   * sessions whose holder went silent), and returns those that a DELETE on another instance hid,
   * whose sockets must now be ended here.
   */
  async heartbeat(instanceId: string, sessionIds: readonly string[]): Promise<{ deleted: string[] }> {
    if (sessionIds.length === 0) return { deleted: [] };
    const [rows] = (await this.dataSource.query(
      `UPDATE sessions SET instance_id = $1, heartbeat_at = now()
       WHERE id = ANY($2) AND status = 'active'
       RETURNING id, deleted_at IS NOT NULL AS deleted`,
      [instanceId, sessionIds],
    )) as [{ id: string; deleted: boolean }[], number];
    return { deleted: rows.filter((r) => r.deleted).map((r) => r.id) };
  }
}
