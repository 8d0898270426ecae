import { PassThrough } from 'node:stream';
import { sha256Hex } from '../../src/platform/ids';
import { FirstStartService } from '../../src/modules/projects/first-start.service';
import { createTestDatabase, databaseTargets } from '../support/test-database';
import { startTestApp, TestApp } from '../support/test-app';

/** A cluster install provisions its first key from a Secret: no console, no `kubectl exec`. */
describe.each(databaseTargets())('starting key from configuration on %s', (target) => {
  const keyA = `wk_${'Ab3'.repeat(14)}`;
  const keyB = `wk_${'Zy9'.repeat(14)}`;
  const firstStart = async (t: TestApp): Promise<{ created: boolean; banner: string }> => {
    const out = new PassThrough();
    let banner = '';
    out.on('data', (chunk: Buffer) => (banner += chunk.toString()));
    const created = await t.app.get(FirstStartService).run(t.baseUrl, out);
    return { created, banner };
  };
  const projectOf = async (t: TestApp, key: string) =>
    fetch(`${t.baseUrl}/v1/project`, { headers: { authorization: `Bearer ${key}` } });
  const keyRows = async (t: TestApp) =>
    t.dataSource.query<{ project_id: string; key_hash: string; key_prefix: string; name: string }[]>(
      'SELECT project_id, key_hash, key_prefix, name FROM api_keys ORDER BY created_at',
    );

  it('is provisioned hashed on the first start, idempotently, and a rotated one joins the first project', async () => {
    const db = await createTestDatabase(target);
    try {
      let t = await startTestApp(target, { databaseUrl: db.url, env: { STARTING_API_KEY: keyA } });
      expect(await firstStart(t)).toEqual({ created: true, banner: '' });
      const first = await projectOf(t, keyA);
      expect(first.status).toBe(200);
      const project = (await first.json()) as { id: string; name: string };
      expect(project.name).toBe('Default project');
      expect(await keyRows(t)).toEqual([
        { project_id: project.id, key_hash: sha256Hex(keyA), key_prefix: keyA.slice(0, 10), name: 'starting key' },
      ]);
      // Restarts (and replicas starting together) change nothing.
      const again = await Promise.all([firstStart(t), firstStart(t)]);
      expect(again).toEqual([
        { created: false, banner: '' },
        { created: false, banner: '' },
      ]);
      expect(await keyRows(t)).toHaveLength(1);
      expect(t.logs.join('')).not.toContain(keyA);
      await t.app.close();

      // The Secret was rotated: the new key joins the oldest project, the old one keeps working until revoked.
      t = await startTestApp(target, { databaseUrl: db.url, env: { STARTING_API_KEY: keyB } });
      expect(await firstStart(t)).toEqual({ created: false, banner: '' });
      const rotated = (await (await projectOf(t, keyB)).json()) as { id: string };
      expect(rotated.id).toBe(project.id);
      expect((await projectOf(t, keyA)).status).toBe(200);
      expect(await keyRows(t)).toHaveLength(2);

      // A revoked starting key is never brought back by a restart.
      await t.dataSource.query('UPDATE api_keys SET revoked_at = now() WHERE key_hash = $1', [sha256Hex(keyA)]);
      await firstStart(t);
      const revoked = await projectOf(t, keyA);
      expect(revoked.status).toBe(401);
      expect(((await revoked.json()) as { error: { code: string } }).error.code).toBe('key_revoked');
      expect(t.logs.join('')).not.toMatch(/wk_(Ab3|Zy9)/);
      await t.app.close();
    } finally {
      await db.drop();
    }
  }, 90_000);

  it('without one, the first start still prints a new key once', async () => {
    const t = await startTestApp(target);
    try {
      const { created, banner } = await firstStart(t);
      expect(created).toBe(true);
      const printed = /(wk_[A-Za-z0-9]+)/.exec(banner)?.[1];
      expect(printed).toBeDefined();
      expect((await projectOf(t, printed!)).status).toBe(200);
      expect(await firstStart(t)).toEqual({ created: false, banner: '' });
    } finally {
      await t.close();
    }
  }, 60_000);
});
