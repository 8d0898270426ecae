import { runCommand, USAGE } from '../../src/cli/commands';
import { ProjectsService } from '../../src/modules/projects/projects.service';
import { databaseTargets } from '../support/test-database';
import { startTestApp, TestApp } from '../support/test-app';

describe('console commands', () => {
  let t: TestApp;
  let projects: ProjectsService;

  beforeAll(async () => {
    t = await startTestApp(databaseTargets()[0]);
    projects = t.app.get(ProjectsService);
  });
  afterAll(() => t?.close());

  const models = (key: string) =>
    t.app.inject({ method: 'GET', url: '/v1/models', headers: { authorization: `Bearer ${key}` } });

  it('creates a project with its credit and a working key, lists and revokes keys', async () => {
    const created = (await runCommand(projects, { positionals: ['projects', 'create'], name: 'Acme' })) as any;
    expect(created.project).toMatchObject({ name: 'Acme', balance_usd: '10.000000' });
    expect(created.key.secret).toMatch(/^wk_/);
    expect((await models(created.key.secret)).statusCode).toBe(200);

    const extra = (await runCommand(projects, {
      positionals: ['keys', 'create'],
      project: created.project.id,
      name: 'backend',
    })) as any;
    const listed = (await runCommand(projects, {
      positionals: ['keys', 'list'],
      project: created.project.id,
    })) as any[];
    expect(listed.map((k) => k.name)).toEqual(['default', 'backend']);
    expect(JSON.stringify(listed)).not.toContain(extra.secret);

    const revoked = (await runCommand(projects, { positionals: ['keys', 'revoke', extra.id] })) as any;
    expect(revoked.revoked_at).toEqual(expect.any(Number));
    expect((await models(extra.secret)).json().error.code).toBe('key_revoked');

    const shown = (await runCommand(projects, {
      positionals: ['projects', 'show'],
      project: created.project.id,
    })) as any;
    expect(shown.id).toBe(created.project.id);
  });

  it('explains its usage on bad input', async () => {
    await expect(runCommand(projects, { positionals: ['keys', 'create'] })).rejects.toThrow('missing --project');
    await expect(runCommand(projects, { positionals: ['nope'] })).rejects.toThrow(USAGE);
  });
});
