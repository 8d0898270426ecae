import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { AppError } from '../../platform/errors/app-error';
import { microsToUsd } from '../../platform/money';
import { ProjectEntity } from './entities/project.entity';
import type { LedgerEntryEntity } from './entities/ledger-entry.entity';
import { ProjectLedgerRepository } from './project-ledger.repository';

/** A project's own limit, or null to fall back on the configured default. */
export type LimitSetting = number | null;

export interface LimitsChange {
  concurrentSessions?: LimitSetting;
  requestsPerMinute?: LimitSetting;
}

/** The largest amount one change may move, as the configuration's USD amounts allow. */
const MAX_AMOUNT_MICROS = 999_999_999_999_999;

/**
 * What an operator changes on a project: its credit, its credit limit and its own concurrency and
 * request-rate limits. Each change and its ledger entry commit together, under the project's row lock,
 * so the history always adds up to the balance.
 */
@Injectable()
export class ProjectControlsService {
  constructor(
    private readonly ledger: ProjectLedgerRepository,
    private readonly dataSource: DataSource,
  ) {}

  /** Adds credit (a negative amount takes some back, as a correction). */
  addCredit(projectId: string, amountMicros: number, actor: string, note?: string): Promise<LedgerEntryEntity> {
    if (!Number.isSafeInteger(amountMicros) || amountMicros === 0 || Math.abs(amountMicros) > MAX_AMOUNT_MICROS) {
      throw new AppError('invalid_parameter', 'The amount must be a non-zero USD amount', { param: 'usd' });
    }
    return this.dataSource.transaction(async (manager) => {
      const [rows] = (await manager.query(
        'UPDATE projects SET balance_micros = balance_micros + $2 WHERE id = $1 RETURNING id',
        [projectId, amountMicros],
      )) as [unknown[], number];
      if (rows.length === 0) throw noProject(projectId);
      return this.ledger.record(manager, {
        projectId,
        kind: 'credit_added',
        amountMicros,
        detail: note ? { note } : {},
        actor,
      });
    });
  }

  /**
   * How far below zero the balance may fall before new sessions are refused; null lifts the limit
   * (the project is never refused for credit, e.g. an internal worker project).
   */
  setCreditLimit(projectId: string, limitMicros: number | null, actor: string): Promise<LedgerEntryEntity> {
    if (
      limitMicros !== null &&
      (!Number.isSafeInteger(limitMicros) || limitMicros < 0 || limitMicros > MAX_AMOUNT_MICROS)
    ) {
      throw new AppError('invalid_parameter', 'The credit limit must be a USD amount of zero or more', {
        param: 'usd',
      });
    }
    return this.dataSource.transaction(async (manager) => {
      const before = await this.lock(manager, projectId);
      await manager.update(ProjectEntity, { id: projectId }, { creditLimitMicros: limitMicros });
      return this.ledger.record(manager, {
        projectId,
        kind: 'credit_limit_set',
        detail: { from_usd: usdOrNull(before.creditLimitMicros), to_usd: usdOrNull(limitMicros) },
        actor,
      });
    });
  }

  /** Sets the project's own limits; a limit left out stays as it is, null returns it to the default. */
  setLimits(projectId: string, change: LimitsChange, actor: string): Promise<LedgerEntryEntity> {
    checkLimit(change.concurrentSessions, 100_000, 'concurrent-sessions');
    checkLimit(change.requestsPerMinute, 1_000_000, 'requests-per-minute');
    if (change.concurrentSessions === undefined && change.requestsPerMinute === undefined) {
      throw new AppError('invalid_parameter', 'Name at least one limit to set');
    }
    return this.dataSource.transaction(async (manager) => {
      const before = await this.lock(manager, projectId);
      const after = {
        concurrentSessionsLimit:
          change.concurrentSessions === undefined ? before.concurrentSessionsLimit : change.concurrentSessions,
        requestsPerMinute: change.requestsPerMinute === undefined ? before.requestsPerMinute : change.requestsPerMinute,
      };
      await manager.update(ProjectEntity, { id: projectId }, after);
      return this.ledger.record(manager, {
        projectId,
        kind: 'limits_set',
        detail: {
          concurrent_sessions: { from: before.concurrentSessionsLimit, to: after.concurrentSessionsLimit },
          requests_per_minute: { from: before.requestsPerMinute, to: after.requestsPerMinute },
        },
        actor,
      });
    });
  }

  history(projectId: string, limit = 50): Promise<LedgerEntryEntity[]> {
    return this.ledger.listByProject(projectId, limit);
  }

  private async lock(manager: DataSource['manager'], projectId: string): Promise<ProjectEntity> {
    const project = await manager.findOne(ProjectEntity, {
      where: { id: projectId },
      lock: { mode: 'pessimistic_write' },
    });
    if (!project) throw noProject(projectId);
    return project;
  }
}

function checkLimit(value: LimitSetting | undefined, max: number, name: string): void {
  if (value === undefined || value === null) return;
  if (!Number.isInteger(value) || value < 1 || value > max) {
    throw new AppError('invalid_parameter', `${name} must be a whole number from 1 to ${max}, or "default"`, {
      param: name,
    });
  }
}

const usdOrNull = (micros: number | null) => (micros === null ? null : microsToUsd(micros));
const noProject = (id: string) => new AppError('not_found', `No project ${id}`);
