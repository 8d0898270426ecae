import { CAPACITY_GATE, ENGINE_REGISTRY } from '../../engines';
import { sha256Hex } from '../../platform/ids';
import { databaseTargets } from '../../../test/support/test-database';
import { MediumModule, mediumModule } from '../../../test/support/medium';
import { insertProject } from '../../../test/support/medium-fixtures';
import { AuthModule, AuthService } from '../auth';
import { HealthModule, LifecycleState } from '../health';
import { ClientSecretsModule } from './client-secrets.module';
import { ClientSecretsService } from './client-secrets.service';
import type { ClientSecretRequestDto } from './dto/client-secret-request.dto';

/**
 * The client-secrets module on a real database: a secret issued with its pending session in the
 * admission statement, stored only as its hash, and redeemed once. The engines' capacity gate and
 * registry are stand-ins (the engines unit's); auth and health are the real modules it uses.
 */
describe.each(databaseTargets())('client-secrets module on %s', (target) => {
  let m: MediumModule;
  let secrets: ClientSecretsService;
  let capacityFree = true;

  beforeAll(async () => {
    m = await mediumModule(target, {
      imports: [AuthModule, HealthModule, ClientSecretsModule],
      globals: [
        { provide: ENGINE_REGISTRY, useValue: {} },
        // Realtime secrets with settings: client-secrets.realtime.medium-spec.ts.
        {
          provide: CAPACITY_GATE,
          useValue: { check: () => (capacityFree ? { available: true } : { available: false, retryAfterMs: 700 }) },
        },
      ],
    });
    secrets = m.get(ClientSecretsService);
  });
  afterAll(() => m?.close());

  const issue = (apiKey: string) =>
    secrets.create(
      m
        .get(AuthService)
        .presentApiKey({ headers: { authorization: `Bearer ${apiKey}` }, url: '/v1/live/client_secrets' }),
      {} as ClientSecretRequestDto,
      { host: 'continuum.test' },
      'live',
    );
  const session = async (id: string) =>
    ((await m.dataSource.query('SELECT status FROM sessions WHERE id = $1', [id])) as { status: string }[])[0]?.status;

  it('issues a secret stored only as its hash, whose session is pending until one redemption wins', async () => {
    const { apiKey } = await insertProject(m.dataSource);
    const issued = await issue(apiKey);
    expect(issued.session.live_url).toBe('ws://continuum.test/v1/live/sessions');
    expect(await session(issued.session.id)).toBe('pending');
    const stored = JSON.stringify(await m.dataSource.query('SELECT * FROM client_secrets'));
    expect(stored).toContain(sha256Hex(issued.value));
    expect(stored).not.toContain(issued.value);

    const redemptions = await Promise.allSettled([1, 2, 3, 4].map(() => secrets.redeem(issued.value)));
    expect(redemptions.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    expect(redemptions.filter((r) => r.status === 'rejected').map((r) => (r.reason as { code: string }).code)).toEqual([
      'client_secret_used',
      'client_secret_used',
      'client_secret_used',
    ]);
    expect(await session(issued.session.id)).toBe('active');
  });

  it('refuses secrets that lapsed, were never issued, or whose key was revoked since', async () => {
    const { apiKey, keyId } = await insertProject(m.dataSource);
    const code = (secret: string) =>
      secrets.redeem(secret).then(
        () => 'redeemed',
        (e: { code: string }) => e.code,
      );
    const lapsed = await issue(apiKey);
    await m.dataSource.query(
      `UPDATE client_secrets SET expires_at = now() - interval '1 second' WHERE session_id = $1`,
      [lapsed.session.id],
    );
    expect(await code(lapsed.value)).toBe('client_secret_expired');
    expect(await code(`${lapsed.value.slice(0, -2)}zz`)).toBe('invalid_client_secret');

    const orphaned = await issue(apiKey);
    await m.dataSource.query('UPDATE api_keys SET revoked_at = now() WHERE id = $1', [keyId]);
    expect(await code(orphaned.value)).toBe('key_revoked');
    expect(await session(orphaned.session.id)).toBe('pending');
  });

  it('issues nothing without engine capacity or while draining', async () => {
    const { apiKey, projectId } = await insertProject(m.dataSource);
    capacityFree = false;
    await expect(issue(apiKey)).rejects.toMatchObject({ code: 'capacity_exhausted', retryAfterMs: 700 });
    capacityFree = true;
    m.get(LifecycleState).startDraining();
    await expect(issue(apiKey)).rejects.toMatchObject({ code: 'shutting_down' });
    const [{ n }]: { n: string }[] = await m.dataSource.query(
      'SELECT count(*) AS n FROM sessions WHERE project_id = $1',
      [projectId],
    );
    expect(Number(n)).toBe(0);
  });
});
