import { PassThrough } from 'node:stream';
import { FirstStartService } from '../../src/modules/projects/first-start.service';
import { databaseTargets } from '../support/test-database';
import { startTestApp } from '../support/test-app';

/**
 * A cluster install provisions its first key from a Secret: the key configured works over HTTP from the
 * first start and is never logged. Provisioning itself (hashing, idempotence, rotation, revocation, the
 * banner without one) is the projects module's: src/modules/projects/first-start.medium-spec.ts.
 */
describe.each(databaseTargets())('starting key from configuration on %s', (target) => {
  const key = `wk_${'Ab3'.repeat(14)}`;

  it('authenticates from the first start and never reaches a log line', async () => {
    const t = await startTestApp(target, { env: { STARTING_API_KEY: key } });
    try {
      const out = new PassThrough();
      expect(await t.app.get(FirstStartService).run(t.baseUrl, out)).toBe(true);
      const project = await fetch(`${t.baseUrl}/v1/project`, { headers: { authorization: `Bearer ${key}` } });
      expect(project.status).toBe(200);
      expect(((await project.json()) as { name: string }).name).toBe('Default project');
      expect(t.logs.join('')).not.toContain(key);
    } finally {
      await t.close();
    }
  });
});
