import { databaseTargets } from '../../../test/support/test-database';
import { MediumModule, mediumModule } from '../../../test/support/medium';
import { AdminController } from './admin.controller';
import { AdminModule } from './admin.module';
import type { AddCreditDto, HistoryQueryDto, LimitsDto } from './dto/admin-requests.dto';

/**
 * The admin module over the real projects module and database: what an operator's calls answer and
 * record, in the operator views (USD strings, never a key's hash). The admin credential is the auth
 * guard's and is proven in test/e2e/admin-api.e2e-spec.ts.
 */
describe.each(databaseTargets().slice(0, 1))('admin module on %s', (target) => {
  let m: MediumModule;
  let admin: AdminController;
  const operator = { kind: 'admin', actor: 'ops@example' } as Parameters<AdminController['createProject']>[1];

  beforeAll(async () => {
    m = await mediumModule(target, { imports: [AdminModule], env: { STARTING_CREDIT_USD: '1' } });
    admin = m.get(AdminController);
  });
  afterAll(() => m?.close());

  it('creates a project with its key shown once, moves credit and limits, and lists the history', async () => {
    const created = await admin.createProject({ name: 'acme' }, operator);
    expect(created.project).toMatchObject({ name: 'acme', balance_usd: '1.000000' });
    expect(created.key.secret).toMatch(/^wk_/);
    const projectId = created.project.id as string;
    expect(JSON.stringify(await admin.listKeys(projectId))).not.toContain(created.key.secret);

    const credited = await admin.addCredit(projectId, { usd: '2.50', note: 'invoice 7' } as AddCreditDto, operator);
    expect(credited.project).toMatchObject({ balance_usd: '3.500000' });
    await admin.setLimits(projectId, { concurrent_sessions: 2 } as LimitsDto, operator);

    const history = await admin.history(projectId, { last: 10 } as HistoryQueryDto);
    expect(history.data.map((e) => [e.kind, e.by])).toEqual(
      expect.arrayContaining([
        ['credit_added', 'ops@example'],
        ['limits_set', 'ops@example'],
      ]),
    );
    await expect(admin.getProject('proj_missing')).rejects.toMatchObject({ code: 'not_found' });
  });
});
