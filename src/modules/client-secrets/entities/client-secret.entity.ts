import { Column, CreateDateColumn, Entity, Index, PrimaryColumn } from 'typeorm';

/** A short-lived credential that opens exactly one session. Only its SHA-256 is stored. */
@Entity('client_secrets')
export class ClientSecretEntity {
  @PrimaryColumn({ type: 'varchar', length: 40 })
  id: string;

  @Index('UQ_client_secrets_session_id', { unique: true })
  @Column({ name: 'session_id', type: 'varchar', length: 40 })
  sessionId: string;

  @Index('UQ_client_secrets_secret_hash', { unique: true })
  @Column({ name: 'secret_hash', type: 'char', length: 64 })
  secretHash: string;

  @Column({ name: 'expires_at', type: 'timestamptz' })
  expiresAt: Date;

  @Column({ name: 'used_at', type: 'timestamptz', nullable: true })
  usedAt: Date | null;

  @Column({ name: 'revoked_at', type: 'timestamptz', nullable: true })
  revokedAt: Date | null;

  /**
   * A Realtime conversation session's configuration as the secret's request gave it (a GA
   * `session.update`'s `session`, without its audio, which the session row holds); NULL otherwise.
   */
  @Column({ name: 'realtime_session', type: 'jsonb', nullable: true })
  realtimeSession: Record<string, unknown> | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;
}
