import { runCommand, UsageError, type CliArgs } from '../../src/cli/commands';
import { ProjectControlsService } from '../../src/modules/projects/project-controls.service';
import { ProjectsService } from '../../src/modules/projects/projects.service';
import { databaseTargets } from '../support/test-database';
import { startTestApp, TestApp } from '../support/test-app';

/** The console commands against the real service and database: what they change is what the API then does. */
describe.each(databaseTargets())('console commands on %s', (target) => {
  let t: TestApp;
  let run: (args: CliArgs) => Promise<any>;

  beforeAll(async () => {
    t = await startTestApp(target);
    const services = {
      projects: t.app.get(ProjectsService),
      controls: t.app.get(ProjectControlsService),
      config: t.config,
      actor: 'alice@test',
    };
    run = (args) => runCommand(services, args);
  });
  afterAll(() => t?.close());

  const get = (key: string, url = '/v1/models') =>
    t.app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${key}` } });

  it('creates a project with its credit and a working key, lists, revokes and rotates keys', async () => {
    const created = await run({ positionals: ['projects', 'create'], name: 'Acme' });
    expect(created.project).toMatchObject({ name: 'Acme', balance_usd: '10.000000', credit_limit_usd: '0.000000' });
    expect(created.key.secret).toMatch(/^wk_/);
    expect((await get(created.key.secret)).statusCode).toBe(200);
    const project = created.project.id;

    const extra = await run({ positionals: ['keys', 'create'], project, name: 'backend' });
    expect((await get(extra.secret)).statusCode).toBe(200);
    const listed: any[] = await run({ positionals: ['keys', 'list'], project });
    expect(listed.map((k) => k.name)).toEqual(['default', 'backend']);
    expect(listed[1]).toMatchObject({ prefix: `${extra.secret.slice(0, 10)}…`, revoked_at: null });
    expect(listed[1].last_used_at).toEqual(expect.any(Number));
    expect(listed[1].created_at).toEqual(expect.any(Number));
    expect(JSON.stringify(listed)).not.toContain(extra.secret);

    const revoked = await run({ positionals: ['keys', 'revoke', extra.id] });
    expect(revoked).toMatchObject({ revoked_at: expect.any(Number), revoked_client_secrets: 0 });
    expect((await get(extra.secret)).json().error.code).toBe('key_revoked');

    const rotated = await run({ positionals: ['keys', 'rotate', created.key.id] });
    expect(rotated.key).toMatchObject({ name: 'default', secret: expect.stringMatching(/^wk_/) });
    expect(rotated.revoked).toMatchObject({ id: created.key.id, revoked_at: expect.any(Number) });
    expect((await get(created.key.secret)).json().error.code).toBe('key_revoked');
    expect((await get(rotated.key.secret)).statusCode).toBe(200);
    await expect(run({ positionals: ['keys', 'rotate', created.key.id] })).rejects.toMatchObject({
      code: 'key_revoked',
    });

    const history = (await run({ positionals: ['credit', 'show'], project })).history as any[];
    expect(history.map((e) => [e.kind, e.by])).toEqual([
      ['key_rotated', 'alice@test'],
      ['key_revoked', 'alice@test'],
      ['key_created', 'alice@test'],
      ['key_created', 'alice@test'],
      ['credit_added', 'alice@test'],
    ]);
  });

  it('adds credit, sets and lifts the credit limit and sets limits, each in the history with who and when', async () => {
    const { project, key } = await run({ positionals: ['projects', 'create'], name: 'Ledger' });
    const before = Math.floor(Date.now() / 1000);
    await run({ positionals: ['credit', 'add'], project: project.id, usd: '5.25', note: 'invoice 7' });
    await run({ positionals: ['credit', 'add'], project: project.id, usd: '-0.25' });
    await run({ positionals: ['credit', 'limit'], project: project.id, usd: '2' });
    await run({ positionals: ['credit', 'limit'], project: project.id, unlimited: true });
    const set = await run({
      positionals: ['limits', 'set'],
      project: project.id,
      'concurrent-sessions': '3',
      'requests-per-minute': '120',
    });
    expect(set.project).toMatchObject({
      balance_usd: '15.000000',
      credit_limit_usd: null,
      concurrent_sessions: 3,
      concurrent_sessions_source: 'project',
      requests_per_minute: 120,
    });
    const shown = await get(key.secret, '/v1/project');
    expect(shown.json()).toMatchObject({
      balance_usd: '15.000000',
      credit_limit_usd: null,
      limits: { concurrent_sessions: 3, requests_per_minute: 120 },
    });

    const { history } = await run({ positionals: ['credit', 'show'], project: project.id, last: '5' });
    expect(history.map((e: any) => [e.kind, e.amount_usd, e.balance_usd, e.by])).toEqual([
      ['limits_set', null, '15.000000', 'alice@test'],
      ['credit_limit_set', null, '15.000000', 'alice@test'],
      ['credit_limit_set', null, '15.000000', 'alice@test'],
      ['credit_added', '-0.250000', '15.000000', 'alice@test'],
      ['credit_added', '5.250000', '15.250000', 'alice@test'],
    ]);
    expect(history[4].detail).toEqual({ note: 'invoice 7' });
    expect(history[1].detail).toEqual({ from_usd: '2.000000', to_usd: null });
    for (const entry of history) expect(entry.at).toBeGreaterThanOrEqual(before);

    await run({ positionals: ['limits', 'set'], project: project.id, 'concurrent-sessions': 'default' });
    expect((await get(key.secret, '/v1/project')).json().limits.concurrent_sessions).toBe(
      t.config.concurrentSessionsLimit,
    );
  });

  it('explains mistakes and refusals', async () => {
    await expect(run({ positionals: ['keys', 'create'], name: 'x' })).rejects.toThrow(
      new UsageError('missing --project'),
    );
    await expect(run({ positionals: ['nope'] })).rejects.toBeInstanceOf(UsageError);
    await expect(run({ positionals: ['credit', 'add'], project: 'proj_x', usd: '1,5' })).rejects.toBeInstanceOf(
      UsageError,
    );
    await expect(run({ positionals: ['credit', 'limit'], project: 'proj_x' })).rejects.toThrow('--unlimited');
    await expect(run({ positionals: ['credit', 'add'], project: 'proj_x', usd: '1' })).rejects.toMatchObject({
      code: 'not_found',
    });
    await expect(run({ positionals: ['keys', 'revoke', 'key_nope'] })).rejects.toMatchObject({ code: 'not_found' });
  });
});
