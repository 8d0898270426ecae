import { newId, sha256Hex } from '../../platform/ids';
import { databaseTargets } from '../../../test/support/test-database';
import type { MediumModule } from '../../../test/support/medium';
import { sessionsMedium } from '../../../test/support/sessions-medium';
import { insertProject } from '../../../test/support/medium-fixtures';

interface Row {
  o_index: number;
  o_outcome: string;
  o_project_id: string | null;
  o_key_allowed: boolean | null;
  o_key_tokens: number | null;
  o_open_sessions: number | null;
}

/** One admission as the service sends it; a key (`key`) is checked by the function itself. */
const admission = (over: { key?: string; project?: string; limit?: number; capacity?: number }) => ({
  key_hash: over.key ? sha256Hex(over.key) : null,
  rate_capacity: over.key ? (over.capacity ?? 1000) : null,
  rate_refill_per_second: over.key ? 0 : null,
  session_id: newId('sess'),
  project_id: over.project ?? null,
  api_key_id: null,
  type: 'transcription',
  model: 'vendor-asr-streaming',
  status: 'pending',
  pool: 'default',
  region: 'local',
  instance_id: null,
  ttl_seconds: 600,
  metadata: {},
  audio: {},
  max_session_seconds: 120,
  session_limit: over.limit ?? 1000,
  secret_id: newId('cs'),
  secret_hash: sha256Hex(newId('cs')),
});

const shuffled = <T>(items: T[]): T[] => {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
};

/**
 * The sessions module's admission on a real database. continuum_admit_sessions(), the statement every
 * admission goes through: each admission of a batch is judged as if it ran alone in the batch's order,
 * and batches that overlap in keys and projects run side by side without deadlocks while the limits hold.
 * (Moved from an e2e suite that started the whole app only to call the function.)
 */
describe.each(databaseTargets())('session admission on %s', (target) => {
  let t: MediumModule;
  const newProject = (_name: string) => insertProject(t.dataSource);
  const admit = async (batch: ReturnType<typeof admission>[]): Promise<Row[]> => {
    const rows: Row[] = await t.dataSource.query('SELECT * FROM continuum_admit_sessions($1)', [JSON.stringify(batch)]);
    return rows.sort((a, b) => a.o_index - b.o_index);
  };
  const openSessions = async (projectId: string) =>
    Number(
      (await t.dataSource.query(`SELECT count(*) AS n FROM sessions WHERE project_id = $1`, [projectId]))[0]
        .n as string,
    );

  beforeAll(async () => {
    t = await sessionsMedium(target);
  });
  afterAll(() => t?.close());

  it('answers every admission of a batch as if it ran alone, in order', async () => {
    const a = await newProject('a');
    const b = await newProject('b');
    const broke = await newProject('broke');
    const revoked = await newProject('revoked');
    await t.dataSource.query(`UPDATE projects SET balance_micros = 0 WHERE id = $1`, [broke.projectId]);
    await t.dataSource.query(`UPDATE api_keys SET revoked_at = now() WHERE id = $1`, [revoked.keyId]);

    const rows = await admit([
      admission({ key: a.apiKey }),
      admission({ key: b.apiKey, limit: 2 }),
      admission({ key: 'wk_unknown' }),
      admission({ key: b.apiKey, limit: 2 }),
      admission({ key: revoked.apiKey }),
      admission({ key: broke.apiKey }),
      admission({ key: b.apiKey, limit: 2 }),
      admission({ key: a.apiKey }),
      admission({ project: a.projectId }),
    ]);

    expect(rows.map((r) => r.o_outcome)).toEqual([
      'admitted',
      'admitted',
      'no_key',
      'admitted',
      'key_refused',
      'no_credit',
      'limit', // b's third, after its first two of this same batch
      'admitted',
      'admitted', // a project the caller already checked: no key, no token
    ]);
    expect(rows.map((r) => r.o_index)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8]);
    expect(rows[6].o_open_sessions).toBe(2);
    // Each admission with a key took one token of its own, in batch order.
    expect([rows[0], rows[7]].map((r) => r.o_key_tokens)).toEqual([999, 998]);
    expect([rows[1], rows[3], rows[6]].map((r) => r.o_key_tokens)).toEqual([999, 998, 997]);
    expect(rows[2].o_project_id).toBeNull();
    expect(await openSessions(a.projectId)).toBe(3);
    expect(await openSessions(b.projectId)).toBe(2);
    expect(await openSessions(broke.projectId)).toBe(0);
  });

  it('refuses the admissions of a batch that find the key out of tokens', async () => {
    const p = await newProject('small bucket');
    const rows = await admit([1, 2, 3].map(() => admission({ key: p.apiKey, capacity: 2 })));
    expect(rows.map((r) => [r.o_outcome, r.o_key_allowed])).toEqual([
      ['admitted', true],
      ['admitted', true],
      ['key_refused', false],
    ]);
    expect(await openSessions(p.projectId)).toBe(2);
  });

  it('runs overlapping batches side by side without deadlock, and the limit holds', async () => {
    const projects = await Promise.all([1, 2, 3, 4].map((i) => newProject(`shared ${i}`)));
    // 8 statements at once, each a batch of 8 over the same 4 keys in a random order: batches that
    // took their locks in batch order would wait on each other in cycles.
    const rounds = await Promise.all(
      Array.from({ length: 8 }, async () => {
        const rows: Row[] = [];
        for (let i = 0; i < 10; i++) {
          rows.push(
            ...(await admit(
              shuffled(projects.flatMap((p) => [p, p])).map((p) => admission({ key: p.apiKey, limit: 100 })),
            )),
          );
        }
        return rows;
      }),
    );
    const outcomes = rounds.flat().map((r) => r.o_outcome);
    expect(outcomes.filter((o) => o === 'admitted')).toHaveLength(400);
    expect(outcomes.filter((o) => o === 'limit')).toHaveLength(640 - 400);
    for (const p of projects) expect(await openSessions(p.projectId)).toBe(100);
    const tokens: { rl_tokens: number }[] = await t.dataSource.query(
      `SELECT rl_tokens FROM api_keys WHERE id = ANY($1) ORDER BY id`,
      [projects.map((p) => p.keyId)],
    );
    expect(tokens.map((k) => k.rl_tokens)).toEqual([840, 840, 840, 840]); // 160 tokens each, one per admission
  }, 60_000);
});
