/**
 * A wrong engines document stops the service before it does anything, with exit code 78 (EX_CONFIG)
 * and a message naming the setting, as a wrong environment variable does.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..');

function startMain(env: Record<string, string>): { status: number | null; stderr: string } {
  const result = spawnSync(process.execPath, ['-r', 'ts-node/register/transpile-only', 'src/main.ts'], {
    cwd: ROOT,
    env: { ...process.env, TS_NODE_PROJECT: join(ROOT, 'tsconfig.json'), PORT: '0', DATA_DIR: '/nonexistent', ...env },
    encoding: 'utf8',
    timeout: 60_000,
  });
  return { status: result.status, stderr: result.stderr };
}

describe('engines configuration at start', () => {
  it.each([
    [
      'an unknown engine kind',
      { engines: { a: { kind: 'whisper' } }, models: {} },
      'ENGINES_JSON engines.a.kind: unknown engine kind "whisper"',
    ],
    [
      'a model without engine',
      { engines: { a: { kind: 'scripted' } }, models: { 'vendor-voicechat': 'a' } },
      'ENGINES_JSON models.vendor-asr-streaming: model without engine',
    ],
  ])('refuses %s with exit code 78 and the setting named', (_case, document, message) => {
    const { status, stderr } = startMain({ ENGINES_JSON: JSON.stringify(document) });
    expect(stderr).toContain(message);
    expect(stderr).toContain('Continuum did not start');
    expect(status).toBe(78);
  });
});
