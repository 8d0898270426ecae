import { Column, CreateDateColumn, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { ProjectEntity } from './project.entity';

@Entity('api_keys')
export class ApiKeyEntity {
  @PrimaryColumn({ type: 'varchar', length: 40 })
  id: string;

  @Index('IDX_api_keys_project_id')
  @Column({ name: 'project_id', type: 'varchar', length: 40 })
  projectId: string;

  @ManyToOne(() => ProjectEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'project_id' })
  project?: ProjectEntity;

  @Column({ type: 'text' })
  name: string;

  /** SHA-256 of the key; the key itself is never stored. */
  @Index('UQ_api_keys_key_hash', { unique: true })
  @Column({ name: 'key_hash', type: 'char', length: 64 })
  keyHash: string;

  /** First characters of the key, so a person can tell keys apart in listings. */
  @Column({ name: 'key_prefix', type: 'varchar', length: 16 })
  keyPrefix: string;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @Column({ name: 'revoked_at', type: 'timestamptz', nullable: true })
  revokedAt: Date | null;

  @Column({ name: 'last_used_at', type: 'timestamptz', nullable: true })
  lastUsedAt: Date | null;

  /** Token bucket of the request-rate limit, kept on the key's row so every instance shares it. */
  @Column({ name: 'rl_tokens', type: 'double precision', nullable: true })
  rateTokens: number | null;

  @Column({ name: 'rl_updated_at', type: 'timestamptz', nullable: true })
  rateUpdatedAt: Date | null;

  @Column({ name: 'rl_allowed', type: 'boolean', default: true })
  rateAllowed: boolean;
}
