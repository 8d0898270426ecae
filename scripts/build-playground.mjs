// Builds the browser side after `nest build`: the client package (ES modules + types, libs/client/dist),
// then the playground page into dist/playground/, served by the service at /playground/.
// No bundler: the page loads ES modules through an import map (playground/index.html).
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);
const tsc = require.resolve('typescript/bin/tsc');
const out = join(root, 'dist', 'playground');

function compile(project) {
  execFileSync(process.execPath, [tsc, '-p', join(root, project)], { stdio: 'inherit' });
}

rmSync(join(root, 'libs', 'client', 'dist'), { recursive: true, force: true });
compile('libs/client/tsconfig.json');
// The package is ESM ("type": "module" in its package.json); the marker keeps dist/ so when copied alone.
writeFileSync(join(root, 'libs', 'client', 'dist', 'package.json'), '{ "type": "module" }\n');

rmSync(out, { recursive: true, force: true });
compile('playground/tsconfig.json');
for (const file of ['index.html', 'playground.css']) cpSync(join(root, 'playground', file), join(out, file));
cpSync(join(root, 'libs', 'client', 'dist'), join(out, 'client'), {
  recursive: true,
  // Types are for editors, and the Node entry (ws, API keys) has no place in a page.
  filter: (path) => !/(\.d\.ts|\.tsbuildinfo|[\\/]node\.js(\.map)?)$/.test(path),
});
// openapi-fetch's ES module has no imports of its own: served as it is.
mkdirSync(join(out, 'vendor'), { recursive: true });
const fetchEntry = join(dirname(require.resolve('openapi-fetch')), 'index.mjs');
cpSync(fetchEntry, join(out, 'vendor', 'openapi-fetch.mjs'));
// OpenAI's Agents SDK (agent mode) as it ships for browsers: its ES module bundle, already self-contained.
const agentsBundle = join(dirname(require.resolve('@openai/agents-realtime')), 'bundle');
cpSync(agentsBundle, join(out, 'vendor', 'agents-realtime'), {
  recursive: true,
  filter: (path) => path === agentsBundle || path.endsWith('.mjs'),
});
process.stdout.write(`playground built in ${out}\n`);
