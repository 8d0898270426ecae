import { databaseTargets } from '../../../test/support/test-database';
import { MediumModule, mediumModule } from '../../../test/support/medium';
import { HealthController } from './health.controller';
import { HealthModule } from './health.module';
import { LifecycleState } from './lifecycle-state';

/** The health module with the real database availability judge: readiness is the instance's own. */
describe.each(databaseTargets().slice(0, 1))('health module on %s', (target) => {
  let m: MediumModule;
  beforeAll(async () => {
    m = await mediumModule(target, { imports: [HealthModule] });
  });
  afterAll(() => m?.close());

  it('is ready with the database up, and answers shutting_down from the first moment of a drain', () => {
    const health = m.get(HealthController);
    expect(health.liveness()).toEqual({ status: 'ok' });
    expect(health.readiness()).toEqual({ status: 'ok', database: 'up' });
    m.get(LifecycleState).startDraining();
    expect(() => health.readiness()).toThrow(expect.objectContaining({ code: 'shutting_down' }));
    expect(health.liveness()).toEqual({ status: 'ok' });
  });
});
