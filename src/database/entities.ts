import { ClientSecretEntity } from '../modules/client-secrets/entities/client-secret.entity';
import { ApiKeyEntity } from '../modules/projects/entities/api-key.entity';
import { LedgerEntryEntity } from '../modules/projects/entities/ledger-entry.entity';
import { ProjectEntity } from '../modules/projects/entities/project.entity';
import { SessionEntity } from '../modules/sessions/entities/session.entity';
import { MeterEventEntity } from '../modules/usage/entities/meter-event.entity';

/** Passed as classes, not globs, so the same options work under Jest, ts-node and from dist. */
export const ENTITIES = [
  ProjectEntity,
  ApiKeyEntity,
  SessionEntity,
  ClientSecretEntity,
  MeterEventEntity,
  LedgerEntryEntity,
];
