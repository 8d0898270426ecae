import { microsToUsd } from '../../platform/money';
import { toUnixSeconds, toUnixSecondsOrNull } from '../../platform/time';
import type { AppConfig } from '../../config/app-config';
import type { ApiKeyEntity } from './entities/api-key.entity';
import type { LedgerEntryEntity } from './entities/ledger-entry.entity';
import type { ProjectEntity } from './entities/project.entity';

const usdOrNull = (micros: number | null) => (micros === null ? null : microsToUsd(micros));

/** A project as the operator sees it: the limits in force, and which of them are the project's own. */
export const projectView = (p: ProjectEntity, config: AppConfig) => ({
  id: p.id,
  name: p.name,
  balance_usd: microsToUsd(p.balanceMicros),
  credit_limit_usd: usdOrNull(p.creditLimitMicros),
  concurrent_sessions: p.concurrentSessionsLimit ?? config.concurrentSessionsLimit,
  concurrent_sessions_source: p.concurrentSessionsLimit === null ? 'default' : 'project',
  requests_per_minute: p.requestsPerMinute ?? config.rateLimitPerMinute,
  requests_per_minute_source: p.requestsPerMinute === null ? 'default' : 'project',
  created_at: toUnixSeconds(p.createdAt),
});

/** Never the key itself: its prefix tells keys apart. */
export const keyView = (k: ApiKeyEntity) => ({
  id: k.id,
  name: k.name,
  prefix: `${k.keyPrefix}…`,
  created_at: toUnixSeconds(k.createdAt),
  last_used_at: toUnixSecondsOrNull(k.lastUsedAt),
  revoked_at: toUnixSecondsOrNull(k.revokedAt),
});

export const ledgerView = (e: LedgerEntryEntity) => ({
  id: e.id,
  at: toUnixSeconds(e.createdAt),
  kind: e.kind,
  amount_usd: usdOrNull(e.amountMicros),
  balance_usd: microsToUsd(e.balanceMicros),
  by: e.actor,
  detail: e.detail,
});
