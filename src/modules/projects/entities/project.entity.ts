import { Column, CreateDateColumn, Entity, PrimaryColumn } from 'typeorm';
import { bigintNumber } from '../../../database/column-transformers';

@Entity('projects')
export class ProjectEntity {
  @PrimaryColumn({ type: 'varchar', length: 40 })
  id: string;

  @Column({ type: 'text' })
  name: string;

  /** Credit left, in micro-dollars; falls as sessions are metered. */
  @Column({ name: 'balance_micros', type: 'bigint', transformer: bigintNumber })
  balanceMicros: number;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;
}
