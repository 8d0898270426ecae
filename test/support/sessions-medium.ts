/**
 * The sessions module's medium tier: its real providers and repositories on a freshly migrated
 * database, the reaper off (a spec ends its sessions itself), and the engines' registry, which the
 * catalog's capacity figures would come from and no statement here asks, as a stand-in.
 */
import { MediumModule, mediumModule } from './medium';
import type { DatabaseTarget } from './test-database';
import { ENGINE_REGISTRY } from '../../src/engines';
import { SessionsModule } from '../../src/modules/sessions/sessions.module';

export function sessionsMedium(target: DatabaseTarget): Promise<MediumModule> {
  return mediumModule(target, {
    imports: [SessionsModule],
    env: { SESSION_REAPER_INTERVAL_SECONDS: '0' },
    globals: [{ provide: ENGINE_REGISTRY, useValue: {} }],
  });
}
