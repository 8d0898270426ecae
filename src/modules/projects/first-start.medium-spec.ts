import { PassThrough } from 'node:stream';
import { sha256Hex } from '../../platform/ids';
import { createTestDatabase, databaseTargets } from '../../../test/support/test-database';
import { MediumModule, mediumModule } from '../../../test/support/medium';
import { FirstStartService } from './first-start.service';
import { ProjectsModule } from './projects.module';

/**
 * A cluster install provisions its first key from a Secret (STARTING_API_KEY): no console, no
 * `kubectl exec`. The projects module on a database that outlives it, as across restarts. (Moved from
 * test/e2e/starting-key.e2e-spec.ts, which started the whole app three times per target; that a
 * stored hash authenticates is the auth module's suite.)
 */
describe.each(databaseTargets())('first start on %s', (target) => {
  const keyA = `wk_${'Ab3'.repeat(14)}`;
  const keyB = `wk_${'Zy9'.repeat(14)}`;
  const firstStart = async (m: MediumModule): Promise<{ created: boolean; banner: string }> => {
    const out = new PassThrough();
    let banner = '';
    out.on('data', (chunk: Buffer) => (banner += chunk.toString()));
    const created = await m.get(FirstStartService).run('http://continuum.test', out);
    return { created, banner };
  };
  const keyRows = (m: MediumModule) =>
    m.dataSource.query<{ project_id: string; key_hash: string; key_prefix: string; name: string; revoked: boolean }[]>(
      'SELECT project_id, key_hash, key_prefix, name, revoked_at IS NOT NULL AS revoked FROM api_keys ORDER BY created_at',
    );

  it('provisions the key hashed on the first start, idempotently, and a rotated one joins the first project', async () => {
    const db = await createTestDatabase(target);
    try {
      let m = await mediumModule(target, { imports: [ProjectsModule], database: db, env: { STARTING_API_KEY: keyA } });
      expect(await firstStart(m)).toEqual({ created: true, banner: '' });
      const [project]: { id: string; name: string }[] = await m.dataSource.query('SELECT id, name FROM projects');
      expect(project.name).toBe('Default project');
      expect(await keyRows(m)).toEqual([
        {
          project_id: project.id,
          key_hash: sha256Hex(keyA),
          key_prefix: keyA.slice(0, 10),
          name: 'starting key',
          revoked: false,
        },
      ]);
      // Restarts (and replicas starting together) change nothing.
      expect(await Promise.all([firstStart(m), firstStart(m)])).toEqual([
        { created: false, banner: '' },
        { created: false, banner: '' },
      ]);
      expect(await keyRows(m)).toHaveLength(1);
      await m.close();

      // The Secret was rotated: the new key joins the oldest project, the old one stays until revoked.
      m = await mediumModule(target, { imports: [ProjectsModule], database: db, env: { STARTING_API_KEY: keyB } });
      try {
        expect(await firstStart(m)).toEqual({ created: false, banner: '' });
        expect((await keyRows(m)).map((k) => [k.project_id, k.key_hash, k.revoked])).toEqual([
          [project.id, sha256Hex(keyA), false],
          [project.id, sha256Hex(keyB), false],
        ]);
        // A revoked starting key is never brought back by a restart.
        await m.dataSource.query('UPDATE api_keys SET revoked_at = now() WHERE key_hash = $1', [sha256Hex(keyA)]);
        await firstStart(m);
        expect((await keyRows(m)).map((k) => [k.key_hash, k.revoked])).toEqual([
          [sha256Hex(keyA), true],
          [sha256Hex(keyB), false],
        ]);
      } finally {
        await m.close();
      }
    } finally {
      await db.drop();
    }
  });

  it('without one, prints a new key once on the first start, stored only as its hash', async () => {
    const m = await mediumModule(target, { imports: [ProjectsModule] });
    try {
      const { created, banner } = await firstStart(m);
      expect(created).toBe(true);
      const printed = /(wk_[A-Za-z0-9]+)/.exec(banner)?.[1];
      expect(printed).toBeDefined();
      expect((await keyRows(m)).map((k) => k.key_hash)).toEqual([sha256Hex(printed!)]);
      expect(await firstStart(m)).toEqual({ created: false, banner: '' });
    } finally {
      await m.close();
    }
  });
});
