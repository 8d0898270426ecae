// `npm run lint`'s layer check: the rules in .dependency-cruiser.cjs, and no cycle between units
// (platform, config, session-core, engines, each module, gateway, the app), which the file rules miss
// when two units import each other through different files.
import { readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { cruise, format } from 'dependency-cruiser';
import extractTSConfig from 'dependency-cruiser/config-utl/extract-ts-config';

const config = createRequire(import.meta.url)('../.dependency-cruiser.cjs');
// Files, not the folder: dependency-cruiser 16 scans folders only for the TypeScript versions it knows.
const files = readdirSync('src', { recursive: true })
  .filter((file) => file.endsWith('.ts'))
  .map((file) => `src/${file}`);
const { output: result } = await cruise(
  files,
  { ...config.options, validate: true, ruleSet: { forbidden: config.forbidden } },
  undefined,
  { tsConfig: extractTSConfig(config.options.tsConfig.fileName) },
);
const report = await format(result, { outputType: 'err' });
process.stdout.write(report.output);

const APP = new Set(['main.ts', 'app.module.ts', 'app.setup.ts', 'cli', 'bin']);
function unitOf(path) {
  const name = path.match(/^src\/(modules\/[^/]+|[^/]+)/)?.[1];
  return name === undefined ? null : APP.has(name) ? 'app' : name;
}
const graph = new Map();
for (const module of result.modules) {
  const from = unitOf(module.source);
  for (const dependency of module.dependencies) {
    const to = unitOf(dependency.resolved);
    if (from && to && to !== from) graph.set(from, (graph.get(from) ?? new Set()).add(to));
  }
}

// Tarjan's strongly connected components: each one with more than one unit is a cycle.
const index = new Map();
const low = new Map();
const stack = [];
const cycles = [];
function visit(unit) {
  index.set(unit, index.size);
  low.set(unit, index.get(unit));
  stack.push(unit);
  for (const next of graph.get(unit) ?? []) {
    if (!index.has(next)) visit(next);
    if (stack.includes(next)) low.set(unit, Math.min(low.get(unit), low.get(next)));
  }
  if (low.get(unit) !== index.get(unit)) return;
  const component = stack.splice(stack.indexOf(unit));
  if (component.length > 1) cycles.push(component.sort());
}
for (const unit of graph.keys()) if (!index.has(unit)) visit(unit);

for (const cycle of cycles) process.stdout.write(`  error unit-cycle: ${cycle.join(' ⇄ ')}\n`);
if (cycles.length === 0 && report.exitCode === 0) process.stdout.write('layers: no cycle between units\n');
process.exitCode = report.exitCode || cycles.length ? 1 : 0;
