import { execFile, execFileSync } from 'node:child_process';
import { promisify } from 'node:util';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { databaseTargets } from '../support/test-database';
import { startTestApp, TestApp } from '../support/test-app';

/**
 * libs/client as a user gets it: `npm pack` (prepack builds it), the tarball installed into a fresh
 * project, a small program type-checked against its declarations and run against the service.
 */
const ROOT = join(__dirname, '..', '..');
const TSC = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
const run = (cmd: string, args: string[], cwd: string, env: Record<string, string> = {}) =>
  execFileSync(cmd, args, { cwd, encoding: 'utf8', timeout: 180_000, env: { ...process.env, ...env } });

const PROGRAM = `import { createRestClient, createClientSecret, unwrap } from '@continuum/client';

const api = createRestClient({ baseUrl: process.env.CONTINUUM_URL!, apiKey: process.env.CONTINUUM_KEY });
const models = await unwrap(api.GET('/v1/models'));
const secret = await createClientSecret(api, { session: { type: 'live', model: 'vendor-voicechat' } });
const ids: string[] = models.data.map((m) => m.id).sort();
console.log(JSON.stringify({ ids, secret: secret.value.slice(0, 3), liveUrl: secret.session.live_url }));
`;

describe('the client package', () => {
  let work: string;
  let app: TestApp;
  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), 'continuum-client-'));
    app = await startTestApp(databaseTargets()[0]);
  });
  afterAll(async () => {
    await app?.close();
    rmSync(work, { recursive: true, force: true });
  });

  it('packs, installs from the tarball, type-checks and runs against the service', async () => {
    run('npm', ['pack', '--silent', '--pack-destination', work], join(ROOT, 'libs', 'client'));
    const tarball = readdirSync(work).find((f) => f.endsWith('.tgz'))!;
    expect(tarball).toBe('continuum-client-0.1.0.tgz');
    const listing = run('tar', ['-tzf', tarball], work).split('\n');
    expect(listing).toEqual(expect.arrayContaining(['package/LICENSE', 'package/dist/client/src/index.d.ts']));
    expect(listing.filter((f) => /\.(map|spec\.js)$|\/src\/.*\.ts$/.test(f) && !f.endsWith('.d.ts'))).toEqual([]);

    const project = join(work, 'app');
    mkdirSync(project);
    writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'app', private: true, type: 'module' }));
    run(
      'npm',
      ['install', '--prefer-offline', '--no-audit', '--no-fund', `../${tarball}`, 'ws@8', '@types/node@20'],
      project,
    );
    writeFileSync(
      join(project, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          target: 'ES2022',
          module: 'nodenext',
          moduleResolution: 'nodenext',
          strict: true,
          types: ['node'],
          outDir: 'dist',
        },
        include: ['*.ts'],
      }),
    );
    writeFileSync(join(project, 'main.ts'), PROGRAM);
    run(process.execPath, [TSC, '-p', '.'], project);

    const { apiKey } = await app.newProject();
    // Asynchronously: the service runs in this process and must go on answering.
    const { stdout: output } = await promisify(execFile)(process.execPath, ['dist/main.js'], {
      cwd: project,
      timeout: 60_000,
      env: { ...process.env, CONTINUUM_URL: app.baseUrl, CONTINUUM_KEY: apiKey },
    });
    expect(JSON.parse(output)).toEqual({
      ids: ['vendor-asr-streaming', 'vendor-voicechat'],
      secret: 'ek_',
      liveUrl: expect.stringMatching(/^ws:\/\/127\.0\.0\.1:\d+\/v1\/live\/sessions$/),
    });

    // The declarations are what the compiler checks: a route the API does not have does not compile.
    writeFileSync(join(project, 'main.ts'), PROGRAM.replace("'/v1/models'", "'/v1/modelz'"));
    const failure = (() => {
      try {
        run(process.execPath, [TSC, '-p', '.', '--noEmit'], project);
        return '';
      } catch (error) {
        return String((error as { stdout?: string }).stdout);
      }
    })();
    expect(failure).toMatch(/^main\.ts\(4,\d+\): error TS\d+/m);
  });
});
