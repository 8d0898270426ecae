import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { bigintNumber } from '../../../platform/database/column-transformers';
import { ProjectEntity } from './project.entity';

/** What an operator changed. */
export const LEDGER_KINDS = [
  'credit_added',
  'credit_limit_set',
  'limits_set',
  'key_created',
  'key_revoked',
  'key_rotated',
] as const;
export type LedgerKind = (typeof LEDGER_KINDS)[number];

/** One operator change to a project, with who made it and when; rows are only ever added. */
@Entity('project_ledger')
@Index('IDX_project_ledger_project_created', ['projectId', 'createdAt', 'id'])
export class LedgerEntryEntity {
  @PrimaryColumn({ type: 'varchar', length: 40 })
  id: string;

  @Column({ name: 'project_id', type: 'varchar', length: 40 })
  projectId: string;

  @ManyToOne(() => ProjectEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'project_id', foreignKeyConstraintName: 'FK_project_ledger_project' })
  project?: ProjectEntity;

  @Column({ type: 'varchar', length: 32 })
  kind: LedgerKind;

  /** The credit added (negative: taken away); null for changes that move no money. */
  @Column({ name: 'amount_micros', type: 'bigint', nullable: true, transformer: bigintNumber })
  amountMicros: number | null;

  /** The balance right after the change. */
  @Column({ name: 'balance_micros', type: 'bigint', transformer: bigintNumber })
  balanceMicros: number;

  /** What else the change set (limits before and after, the key concerned, a note). */
  @Column({ type: 'jsonb', default: () => "'{}'" })
  detail: Record<string, unknown>;

  /** Who made the change, as the operator named themselves (the CLI defaults to the OS user). */
  @Column({ type: 'text' })
  actor: string;

  @Column({ name: 'created_at', type: 'timestamptz', default: () => 'clock_timestamp()' })
  createdAt: Date;
}
