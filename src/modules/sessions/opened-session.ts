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
  /**
   * A conversation's settings its client secret carries, as the session core's codec stored them
   * (encodeSecretConversation), applied before `session.created`; absent or null otherwise.
   */
  realtimeSession?: Record<string, unknown> | null;
}
