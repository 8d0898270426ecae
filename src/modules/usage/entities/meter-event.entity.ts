import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import { bigintNumber } from '../../../platform/database/column-transformers';

/** One batch of metered frames. The id is derived from (session, seq), so a retried write is a no-op. */
@Entity('meter_events')
@Index('IDX_meter_events_project_recorded', ['projectId', 'recordedAt', 'id'])
@Index('IDX_meter_events_session', ['sessionId', 'seq'])
export class MeterEventEntity {
  @PrimaryColumn({ type: 'varchar', length: 80 })
  id: string;

  @Column({ name: 'session_id', type: 'varchar', length: 40 })
  sessionId: string;

  @Column({ name: 'project_id', type: 'varchar', length: 40 })
  projectId: string;

  @Column({ type: 'integer' })
  seq: number;

  @Column({ type: 'integer' })
  frames: number;

  /** Text tokens of the responses that ended since the session's previous batch (billed with its frames). */
  @Column({ name: 'input_tokens', type: 'integer', default: 0 })
  inputTokens: number;

  @Column({ name: 'output_tokens', type: 'integer', default: 0 })
  outputTokens: number;

  @Column({ name: 'cost_micros', type: 'bigint', transformer: bigintNumber })
  costMicros: number;

  @Column({ name: 'recorded_at', type: 'timestamptz', default: () => 'now()' })
  recordedAt: Date;
}
