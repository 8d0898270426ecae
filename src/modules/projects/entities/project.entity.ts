import { Column, CreateDateColumn, Entity, PrimaryColumn } from 'typeorm';
import { bigintNumber } from '../../../platform/database/column-transformers';

@Entity('projects')
export class ProjectEntity {
  @PrimaryColumn({ type: 'varchar', length: 40 })
  id: string;

  @Column({ type: 'text' })
  name: string;

  /** Credit left, in micro-dollars; falls as sessions are metered. */
  @Column({ name: 'balance_micros', type: 'bigint', transformer: bigintNumber })
  balanceMicros: number;

  /** How far below zero the balance may fall before sessions are refused; null: never refused for credit. */
  @Column({ name: 'credit_limit_micros', type: 'bigint', nullable: true, default: 0, transformer: bigintNumber })
  creditLimitMicros: number | null;

  /** The project's own concurrency limit; null: CONCURRENT_SESSIONS_LIMIT. */
  @Column({ name: 'concurrent_sessions_limit', type: 'integer', nullable: true })
  concurrentSessionsLimit: number | null;

  /** The project's own request rate for each of its keys; null: RATE_LIMIT_REQUESTS_PER_MINUTE. */
  @Column({ name: 'requests_per_minute', type: 'integer', nullable: true })
  requestsPerMinute: number | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;
}
