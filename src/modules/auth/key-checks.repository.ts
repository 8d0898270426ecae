import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';

export interface KeyCheck {
  id: string;
  projectId: string;
  revoked: boolean;
  allowed: boolean;
  tokens: number;
  /** The bucket's size (requests per minute): the project's own, or the configured default. */
  capacity: number;
}

/** The key check every authenticated request makes: one statement on the api_keys table. */
@Injectable()
export class KeyChecksRepository {
  constructor(@InjectDataSource() private readonly keys: DataSource) {}

  /**
   * Looks a key up by its hash and takes one token from its request bucket: one round trip per
   * authenticated request, exact across instances (the row is locked), and not waiting for the WAL
   * flush (migration RequestTokens explains why).
   */
  async checkAndConsume(keyHash: string, capacity: number, refillPerSecond: number): Promise<KeyCheck | null> {
    const rows: {
      o_id: string;
      o_project_id: string;
      o_revoked: boolean;
      o_allowed: boolean;
      o_tokens: number;
      o_capacity: number;
    }[] = await this.keys.query('SELECT * FROM continuum_take_request_token($1, $2, $3)', [
      keyHash,
      capacity,
      refillPerSecond,
    ]);
    const row = rows[0];
    if (!row) return null;
    return {
      id: row.o_id,
      projectId: row.o_project_id,
      revoked: row.o_revoked,
      allowed: row.o_allowed,
      tokens: row.o_tokens,
      capacity: row.o_capacity,
    };
  }
}
