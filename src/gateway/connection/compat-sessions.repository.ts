import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { SessionConfig } from '../../session-core/index';
import type { SessionType } from '../../modules/sessions';

/** What the compatibility sockets read and write on session rows beyond the shared admission path. */
@Injectable()
export class CompatSessionsRepository {
  constructor(private readonly dataSource: DataSource) {}

  /**
   * The type of the session a client secret opens, read without redeeming it, so that a socket
   * that cannot serve it refuses before the secret is spent. Null for an unknown secret (the
   * redemption then answers it).
   */
  async secretSessionType(secretHash: string): Promise<SessionType | null> {
    const rows: { type: SessionType }[] = await this.dataSource.query(
      `SELECT s.type FROM client_secrets c JOIN sessions s ON s.id = c.session_id WHERE c.secret_hash = $1`,
      [secretHash],
    );
    return rows[0]?.type ?? null;
  }

  /** Stores the language and turn detection a socket's client chose, keeping the rest (model, prompt). */
  async recordEngineSettings(sessionId: string, config: SessionConfig): Promise<void> {
    const td = config.turnDetection;
    const turnDetection =
      td === null
        ? null
        : {
            type: 'server_vad',
            threshold: td.threshold,
            prefix_padding_ms: td.prefixPaddingMs,
            silence_duration_ms: td.silenceDurationMs,
          };
    await this.dataSource.query(
      `UPDATE sessions
          SET audio = jsonb_set(jsonb_set(audio, '{input,transcription,language}', $2::jsonb),
                                '{input,turn_detection}', $3::jsonb)
        WHERE id = $1`,
      [sessionId, JSON.stringify(config.language), JSON.stringify(turnDetection)],
    );
  }
}
