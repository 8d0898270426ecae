import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';

const SCRIPT = resolve(__dirname, '../../scripts/check-layers.mjs');

/** Runs the layer check on a tree of files; returns its exit code and what it printed. */
function check(files: Record<string, string>): { code: number; out: string } {
  const root = mkdtempSync(join(tmpdir(), 'layers-'));
  try {
    writeFileSync(join(root, 'tsconfig.json'), JSON.stringify({ compilerOptions: { module: 'commonjs' } }));
    for (const [path, text] of Object.entries(files)) {
      mkdirSync(dirname(join(root, path)), { recursive: true });
      writeFileSync(join(root, path), text);
    }
    try {
      return { code: 0, out: execFileSync(process.execPath, [SCRIPT], { cwd: root, encoding: 'utf8' }) };
    } catch (error) {
      const failed = error as { status: number; stdout: string };
      return { code: failed.status, out: failed.stdout };
    }
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

describe('npm run lint:layers', () => {
  it('passes on this repository', () => {
    const out = execFileSync(process.execPath, [SCRIPT], { cwd: resolve(__dirname, '../..'), encoding: 'utf8' });
    expect(out).toContain('no cycle between units');
  });

  it('passes a tree whose layers point one way', () => {
    const { code } = check({
      'src/platform/ids.ts': 'export const id = 1;\n',
      'src/modules/a/index.ts': "export { a } from './a';\n",
      'src/modules/a/a.ts': "import { id } from '../../platform/ids';\nexport const a = id;\n",
      'src/modules/b/b.ts': "import { a } from '../a';\nexport const b = a;\n",
    });
    expect(code).toBe(0);
  });

  it.each([
    [
      'platform-imports-no-feature-code',
      { 'src/platform/x.ts': "import { a } from '../modules/a';\nexport const x = a;\n" },
    ],
    [
      'a-module-is-entered-through-its-index',
      { 'src/modules/b/b.ts': "import { a } from '../a/a';\nexport const b = a;\n" },
    ],
    [
      'session-core-is-pure',
      {
        'src/session-core/s.ts': "import { k } from '../engines/kinds';\nexport const s = k;\n",
        'src/engines/kinds.ts': 'export const k = 1;\n',
      },
    ],
    [
      'session-core-is-pure',
      {
        'src/session-core/s.ts': "import type { E } from '../engines/e';\nexport type S = E;\n",
        'src/engines/e.ts': 'export type E = number;\n',
      },
    ],
    ['engines-know-no-feature', { 'src/engines/e.ts': "import { a } from '../modules/a';\nexport const e = a;\n" }],
    [
      'the-engines-are-entered-through-their-index',
      {
        'src/engines/index.ts': "export { r } from './registry/r';\n",
        'src/engines/registry/r.ts': 'export const r = 1;\n',
        'src/modules/b/b.ts': "import { r } from '../../engines/registry/r';\nexport const b = r;\n",
      },
    ],
    [
      // The kinds are the ones registered in engine-kinds.ts: no list of them in the rule.
      'an-engine-kind-stands-alone',
      {
        'src/engines/registry/engine-kinds.ts':
          "import { alpha } from '../alpha/alpha.kind';\nimport { beta } from '../beta/beta.kind';\nexport const KINDS = [alpha, beta];\n",
        'src/engines/alpha/alpha.kind.ts': "import { beta } from '../beta/beta.kind';\nexport const alpha = beta;\n",
        'src/engines/beta/beta.kind.ts': 'export const beta = 1;\n',
      },
    ],
    [
      'modules-know-no-gateway',
      {
        'src/modules/b/b.ts': "import { g } from '../../gateway/g';\nexport const b = g;\n",
        'src/gateway/g.ts': 'export const g = 1;\n',
      },
    ],
  ])('refuses %s', (rule, extra) => {
    const { code, out } = check({
      'src/modules/a/index.ts': "export { a } from './a';\n",
      'src/modules/a/a.ts': 'export const a = 1;\n',
      ...extra,
    });
    expect(code).toBe(1);
    expect(out).toContain(rule);
  });

  it('passes the engines entered through their index, and a kind using a folder that is not a kind', () => {
    const { code, out } = check({
      'src/engines/index.ts': "export { r } from './registry/r';\n",
      'src/engines/registry/r.ts': 'export const r = 1;\n',
      'src/engines/registry/engine-kinds.ts':
        "import { alpha } from '../alpha/alpha.kind';\nexport const KINDS = [alpha];\n",
      'src/engines/alpha/alpha.kind.ts': "import { l } from '../listening/l';\nexport const alpha = l;\n",
      'src/engines/listening/l.ts': 'export const l = 1;\n',
      'src/modules/a/index.ts': "export { a } from './a';\n",
      'src/modules/a/a.ts': "import { r } from '../../engines';\nexport const a = r;\n",
    });
    expect(out).toContain('no cycle between units');
    expect(code).toBe(0);
  });

  it('refuses a cycle between two modules that import each other through different files', () => {
    const { code, out } = check({
      'src/modules/a/index.ts': "export { a } from './a';\nexport { a2 } from './a2';\n",
      'src/modules/a/a.ts': 'export const a = 1;\n',
      'src/modules/a/a2.ts': "import { b } from '../b';\nexport const a2 = b;\n",
      'src/modules/b/index.ts': "export { b } from './b';\n",
      'src/modules/b/b.ts': "import { a } from '../a/index';\nexport const b = a;\n",
    });
    expect(code).toBe(1);
    expect(out).toMatch(/unit-cycle: modules\/a ⇄ modules\/b/);
  });
});
