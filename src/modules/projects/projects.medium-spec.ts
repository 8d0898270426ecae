import { newId, sha256Hex } from '../../platform/ids';
import { AppError } from '../../platform/errors/app-error';
import { databaseTargets } from '../../../test/support/test-database';
import { MediumModule, mediumModule } from '../../../test/support/medium';
import { ProjectControlsService } from './project-controls.service';
import { ProjectsModule } from './projects.module';
import { ProjectsService } from './projects.service';

/**
 * The projects module on a real database: projects, hashed keys, the operator's controls and the ledger
 * that records each change in the same transaction.
 */
describe.each(databaseTargets())('projects module on %s', (target) => {
  let m: MediumModule;
  let projects: ProjectsService;
  let controls: ProjectControlsService;

  beforeAll(async () => {
    m = await mediumModule(target, { imports: [ProjectsModule], env: { STARTING_CREDIT_USD: '2.5' } });
    projects = m.get(ProjectsService);
    controls = m.get(ProjectControlsService);
  });
  afterAll(() => m?.close());

  const ledger = async (projectId: string) =>
    (await controls.history(projectId)).map((e) => ({
      kind: e.kind,
      amount: e.amountMicros,
      balance: e.balanceMicros,
    }));

  it('creates a project with the configured credit and one key stored only as its SHA-256', async () => {
    const { project, key, secret } = await projects.createProject('acme', undefined, 'ops');
    expect(project.balanceMicros).toBe(2_500_000);
    expect(secret).toMatch(/^wk_/);
    const [row]: { key_hash: string; key_prefix: string }[] = await m.dataSource.query(
      'SELECT key_hash, key_prefix FROM api_keys WHERE id = $1',
      [key.id],
    );
    expect(row).toEqual({ key_hash: sha256Hex(secret), key_prefix: secret.slice(0, 10) });
    const stored = JSON.stringify(await m.dataSource.query('SELECT * FROM api_keys WHERE id = $1', [key.id]));
    expect(stored).not.toContain(secret);
    // The history starts with the starting credit, so it adds up to the balance.
    expect(await ledger(project.id)).toEqual(
      expect.arrayContaining([
        { kind: 'credit_added', amount: 2_500_000, balance: 2_500_000 },
        { kind: 'key_created', amount: null, balance: 2_500_000 },
      ]),
    );
  });

  it("revokes a key with its unused secrets, closing their pending sessions, and leaves others' alone", async () => {
    const { project, key } = await projects.createProject('revoking');
    const other = await projects.createKey(project.id, 'other');
    const pending = async (apiKeyId: string, used = false) => {
      const sessionId = newId('sess');
      await m.dataSource.query(
        `INSERT INTO sessions (id, project_id, api_key_id, type, model, status, pool, region, expires_at, audio)
         VALUES ($1, $2, $3, 'live', 'vendor-voicechat', 'pending', 'default', 'local', now() + interval '1 minute', '{}')`,
        [sessionId, project.id, apiKeyId],
      );
      await m.dataSource.query(
        `INSERT INTO client_secrets (id, session_id, secret_hash, expires_at, used_at)
         VALUES ($1, $2, $3, now() + interval '1 minute', $4)`,
        [newId('cs'), sessionId, sha256Hex(newId('cs')), used ? new Date() : null],
      );
      return sessionId;
    };
    const unused = await pending(key.id);
    const redeemed = await pending(key.id, true);
    const otherKeys = await pending(other.key.id);

    const revoked = await projects.revokeKey(key.id, 'ops');
    expect(revoked.revokedSecrets).toBe(1);
    expect(revoked.key.revokedAt).toBeInstanceOf(Date);
    const status: { id: string; status: string; close_reason: string | null }[] = await m.dataSource.query(
      'SELECT id, status, close_reason FROM sessions WHERE id = ANY($1)',
      [[unused, redeemed, otherKeys]],
    );
    expect(Object.fromEntries(status.map((s) => [s.id, [s.status, s.close_reason]]))).toEqual({
      [unused]: ['closed', 'close_requested'],
      [redeemed]: ['pending', null],
      [otherKeys]: ['pending', null],
    });
    // Idempotent: a second revocation changes nothing and records nothing.
    expect((await projects.revokeKey(key.id)).revokedSecrets).toBe(0);
    expect((await ledger(project.id)).filter((e) => e.kind === 'key_revoked')).toHaveLength(1);
  });

  it('rotates a key into a new one under the old name, and refuses to rotate a revoked key', async () => {
    const { project, key } = await projects.createProject('rotating');
    const rotated = await projects.rotateKey(key.id, 'ops');
    expect(rotated.key).toMatchObject({ name: key.name, projectId: project.id, revokedAt: null });
    expect(rotated.revoked.key.revokedAt).toBeInstanceOf(Date);
    expect((await projects.listKeys(project.id)).map((k) => [k.id, k.revokedAt === null])).toEqual(
      expect.arrayContaining([
        [key.id, false],
        [rotated.key.id, true],
      ]),
    );
    await expect(projects.rotateKey(key.id)).rejects.toMatchObject({ code: 'key_revoked' });
  });

  it('moves the balance and the limits only with a ledger entry saying who and from what', async () => {
    const { project } = await projects.createProject('controlled');
    await controls.addCredit(project.id, -3_000_000, 'ops', 'refund');
    await controls.setCreditLimit(project.id, null, 'ops');
    await controls.setLimits(project.id, { concurrentSessions: 3 }, 'ops');
    await controls.setLimits(project.id, { requestsPerMinute: 60 }, 'ops');
    expect(await projects.getProject(project.id)).toMatchObject({
      balanceMicros: -500_000,
      creditLimitMicros: null,
      concurrentSessionsLimit: 3,
      requestsPerMinute: 60,
    });
    const entries = await controls.history(project.id);
    expect(entries.map((e) => [e.kind, e.actor, e.balanceMicros])).toEqual(
      expect.arrayContaining([
        ['credit_added', 'ops', -500_000],
        ['credit_limit_set', 'ops', -500_000],
      ]),
    );
    expect(entries.find((e) => e.kind === 'limits_set' && e.detail.requests_per_minute)?.detail).toEqual(
      expect.objectContaining({
        concurrent_sessions: { from: 3, to: 3 },
        requests_per_minute: { from: null, to: 60 },
      }),
    );
  });

  it('refuses amounts and limits out of range, and unknown projects, before writing anything', async () => {
    const { project } = await projects.createProject('strict');
    const before = await controls.history(project.id);
    // Validation throws before any promise exists; `later` makes every refusal a rejection alike.
    const later = <T>(call: () => Promise<T>): Promise<T> => Promise.resolve().then(call);
    await expect(later(() => controls.addCredit(project.id, 0, 'ops'))).rejects.toMatchObject({
      code: 'invalid_parameter',
    });
    await expect(later(() => controls.setCreditLimit(project.id, -1, 'ops'))).rejects.toMatchObject({
      code: 'invalid_parameter',
    });
    await expect(later(() => controls.setLimits(project.id, {}, 'ops'))).rejects.toBeInstanceOf(AppError);
    await expect(controls.addCredit('proj_missing', 1, 'ops')).rejects.toMatchObject({ code: 'not_found' });
    await expect(projects.getProject('proj_missing')).rejects.toMatchObject({ code: 'not_found' });
    expect(await controls.history(project.id)).toHaveLength(before.length);
  });
});
