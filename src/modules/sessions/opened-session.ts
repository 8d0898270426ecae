import type { SessionAudioConfig, SessionType } from './entities/session.entity';

/**
 * A session a socket may now run, already `active` in the database: what
 * ClientSecretsService.redeem() and SessionsService.openWithApiKey() hand to the socket layer.
 */
export interface OpenedSession {
  id: string;
  projectId: string;
  /** The API key that created the secret or opened the socket. */
  apiKeyId: string | null;
  type: SessionType;
  model: string;
  pool: string;
  region: string;
  audio: SessionAudioConfig;
  metadata: Record<string, string>;
  startedAt: Date;
  /** When the client secret lapses; null for sessions opened with an API key. */
  secretExpiresAt: Date | null;
  /**
   * A Realtime conversation's settings its client secret carries (a GA `session.update`'s session,
   * audio aside), applied before `session.created`; absent or null otherwise.
   */
  realtimeSession?: Record<string, unknown> | null;
}
