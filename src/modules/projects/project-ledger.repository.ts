import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, Repository } from 'typeorm';
import { newId } from '../../platform/ids';
import { LedgerEntryEntity, type LedgerKind } from './entities/ledger-entry.entity';

export interface LedgerChange {
  projectId: string;
  kind: LedgerKind;
  amountMicros?: number | null;
  detail?: Record<string, unknown>;
  actor: string;
}

/** The operator's record of a project: written in the transaction that makes the change, never edited. */
@Injectable()
export class ProjectLedgerRepository {
  constructor(@InjectRepository(LedgerEntryEntity) private readonly entries: Repository<LedgerEntryEntity>) {}

  /** Records a change made (in `manager`'s transaction), with the balance as that transaction now sees it. */
  async record(manager: EntityManager, change: LedgerChange): Promise<LedgerEntryEntity> {
    const id = newId('led');
    await manager.query(
      `INSERT INTO project_ledger (id, project_id, kind, amount_micros, balance_micros, detail, actor)
       SELECT $1, p.id, $3, $4, p.balance_micros, $5, $6 FROM projects p WHERE p.id = $2`,
      [id, change.projectId, change.kind, change.amountMicros ?? null, change.detail ?? {}, change.actor],
    );
    return manager.findOneOrFail(LedgerEntryEntity, { where: { id } });
  }

  /** Newest first. */
  listByProject(projectId: string, limit: number): Promise<LedgerEntryEntity[]> {
    return this.entries.find({ where: { projectId }, order: { createdAt: 'DESC', id: 'DESC' }, take: limit });
  }
}
