import { Column, CreateDateColumn, Entity, Index, PrimaryColumn } from 'typeorm';
import { bigintNumber } from '../../../platform/database/column-transformers';

export const SESSION_STATUSES = ['pending', 'active', 'closed', 'expired'] as const;
export type SessionStatus = (typeof SESSION_STATUSES)[number];
export const CLOSE_REASONS = ['close_requested', 'expired', 'connection_lost'] as const;
export type CloseReason = (typeof CLOSE_REASONS)[number];
export type SessionType = 'live' | 'transcription';
/** How a session's media arrives: its dialect's socket, a WebRTC call, a carrier's stream, or one request. */
export const SESSION_TRANSPORTS = ['websocket', 'webrtc', 'twilio', 'batch'] as const;
export type SessionTransport = (typeof SESSION_TRANSPORTS)[number];

/** The resolved audio configuration a session runs with. */
export interface SessionAudioConfig {
  input: {
    format: { type: string; rate: number | null };
    transcription: { language: string; model?: string; prompt?: string };
    turn_detection: Record<string, unknown> | null;
    noise_reduction: null;
  };
  /** `format`: a Realtime conversation's output format when its secret named one (absent: pcm16 24 kHz). */
  output: { voice: string; encoding: 'base64' | 'binary'; format?: { type: string; rate: number | null } } | null;
}

@Entity('sessions')
@Index('IDX_sessions_project_created', ['projectId', 'createdAt', 'id'])
// Admission counts a project's pending (unexpired) and active sessions: a range scan of this index.
@Index('IDX_sessions_project_status_expires', ['projectId', 'status', 'expiresAt'])
@Index('IDX_sessions_status_expires', ['status', 'expiresAt'])
// The sideband and hang-up find a call by its own id.
@Index('IDX_sessions_call_id', ['callId'], { unique: true, where: 'call_id IS NOT NULL' })
// A key's revocation finds its open sessions (unused secrets, live sockets) through this one.
@Index('IDX_sessions_api_key_open', ['apiKeyId'], { where: "status IN ('pending', 'active')" })
export class SessionEntity {
  @PrimaryColumn({ type: 'varchar', length: 40 })
  id: string;

  @Column({ name: 'project_id', type: 'varchar', length: 40 })
  projectId: string;

  @Column({ name: 'api_key_id', type: 'varchar', length: 40, nullable: true })
  apiKeyId: string | null;

  @Column({ type: 'varchar', length: 16 })
  type: SessionType;

  @Column({ type: 'varchar', length: 64 })
  model: string;

  @Column({ type: 'varchar', length: 16 })
  status: SessionStatus;

  @Column({ type: 'varchar', length: 64 })
  pool: string;

  @Column({ type: 'varchar', length: 16, default: 'websocket' })
  transport: SessionTransport;

  /** A call's own id (`rtc_…`); null for sessions that are not calls. */
  @Column({ name: 'call_id', type: 'varchar', length: 40, nullable: true })
  callId: string | null;

  /** Where the other instances reach the one that holds the call's media (its INSTANCE_URL), for the sideband. */
  @Column({ name: 'call_owner_url', type: 'varchar', length: 300, nullable: true })
  callOwnerUrl: string | null;

  @Column({ type: 'varchar', length: 64 })
  region: string;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @Column({ name: 'started_at', type: 'timestamptz', nullable: true })
  startedAt: Date | null;

  @Column({ name: 'ended_at', type: 'timestamptz', nullable: true })
  endedAt: Date | null;

  /** When the session's client secret lapses (null for sessions opened with an API key). */
  @Column({ name: 'expires_at', type: 'timestamptz', nullable: true })
  expiresAt: Date | null;

  @Column({ name: 'close_reason', type: 'varchar', length: 32, nullable: true })
  closeReason: CloseReason | null;

  @Column({ type: 'jsonb', default: () => "'{}'" })
  metadata: Record<string, string>;

  @Column({ type: 'jsonb' })
  audio: SessionAudioConfig;

  @Column({ type: 'integer', default: 0 })
  frames: number;

  @Column({ name: 'cost_micros', type: 'bigint', default: 0, transformer: bigintNumber })
  costMicros: number;

  /** A conversation's billed text tokens, kept by the meter with frames and cost; null until it bills any. */
  @Column({ name: 'input_tokens', type: 'bigint', nullable: true, transformer: bigintNumber })
  inputTokens: number | null;

  @Column({ name: 'output_tokens', type: 'bigint', nullable: true, transformer: bigintNumber })
  outputTokens: number | null;

  /** Set by DELETE: hidden from the API, still billed and exported. */
  @Column({ name: 'deleted_at', type: 'timestamptz', nullable: true })
  deletedAt: Date | null;

  /** The instance that holds the session's socket, and when it last said it is alive. */
  @Column({ name: 'instance_id', type: 'varchar', length: 64, nullable: true })
  instanceId: string | null;

  @Column({ name: 'heartbeat_at', type: 'timestamptz', nullable: true })
  heartbeatAt: Date | null;
}
