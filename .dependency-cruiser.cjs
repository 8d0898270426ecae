/**
 * The layers of src/ (docs/architecture.md, "Layers"), checked by `npm run lint`:
 *   platform ← config ← session-core ← engines ← modules ← gateway ← app (main, app.*, cli, bin)
 * An arrow means "may be imported by". Modules, the session core and the engines are entered through their
 * index.ts. Tests and benches may reach inside anything; they are not cruised.
 */
const { existsSync, readFileSync } = require('node:fs');

/**
 * The engine kinds' folders, read from the one registration point (ENGINE_KINDS imports each kind's
 * `<kind>.kind.ts`), so a kind registered there is held to its rule without an edit here.
 */
const KINDS_FILE = 'src/engines/registry/engine-kinds.ts';
const KIND_FOLDERS = existsSync(KINDS_FILE)
  ? [...readFileSync(KINDS_FILE, 'utf8').matchAll(/from '\.\.\/([^/']+)\/[^']*\.kind'/g)].map((match) => match[1])
  : [];
const KINDS = `(${KIND_FOLDERS.join('|')})`;
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'A cycle between files: one of them belongs elsewhere.',
      from: { path: '^src/' },
      to: { circular: true },
    },
    {
      name: 'platform-imports-no-feature-code',
      severity: 'error',
      comment: 'platform/ is the floor: errors, validation, http, logging, database, audio, openapi builders.',
      from: { path: '^src/platform/' },
      to: { path: '^src/', pathNot: '^src/platform/' },
    },
    {
      name: 'config-stands-on-platform-only',
      severity: 'error',
      from: { path: '^src/config/' },
      to: { path: '^src/', pathNot: ['^src/platform/', '^src/config/'] },
    },
    {
      name: 'session-core-is-pure',
      severity: 'error',
      comment: 'The session core knows only the platform; it owns the engine port (session-core/engine/).',
      from: { path: '^src/session-core/' },
      to: { path: '^src/', pathNot: ['^src/session-core/', '^src/platform/'] },
    },
    {
      name: 'session-core-has-no-framework',
      severity: 'error',
      comment: 'No Nest, TypeORM, ws or pg in the session core: it is plain TypeScript, tested without I/O.',
      from: { path: '^src/session-core/' },
      to: {
        dependencyTypes: ['npm', 'npm-dev', 'npm-peer', 'npm-optional'],
        path: 'node_modules/(@nestjs/|typeorm|ws/|pg/|pg-)',
      },
    },
    {
      name: 'engines-know-no-feature',
      severity: 'error',
      comment: 'Engines serve sessions; they are told what they need through tokens (CAPACITY_GATE, ENGINE_METERS).',
      from: { path: '^src/engines/' },
      to: { path: '^src/(modules|gateway|cli|bin)/|^src/[^/]+[.]ts$' },
    },
    ...(KIND_FOLDERS.length === 0
      ? []
      : [
          {
            name: 'an-engine-kind-stands-alone',
            severity: 'error',
            comment: `A kind (registered in ${KINDS_FILE}) uses the core's engine port, the registry and listening/, not another kind (a composite gets engines through its context).`,
            from: { path: `^src/engines/${KINDS}/` },
            to: { path: `^src/engines/${KINDS}/`, pathNot: '^src/engines/$1/' },
          },
        ]),
    {
      name: 'modules-know-no-gateway',
      severity: 'error',
      comment: 'The socket layer sits above the modules: it uses them, never the other way round.',
      from: { path: '^src/modules/' },
      to: { path: '^src/(gateway|cli|bin)/|^src/[^/]+[.]ts$' },
    },
    {
      name: 'a-module-is-entered-through-its-index',
      severity: 'error',
      comment: "Another module's insides are its own: import its index.ts.",
      from: { path: '^src/modules/([^/]+)/' },
      to: { path: '^src/modules/', pathNot: ['^src/modules/$1/', '^src/modules/[^/]+/index[.]ts$'] },
    },
    {
      name: 'modules-are-entered-through-their-index',
      severity: 'error',
      // src/swagger-metadata.ts is generated: the swagger plugin's view of each module's DTOs and controllers.
      from: { path: '^src/', pathNot: ['^src/modules/', '^src/swagger-metadata[.]ts$'] },
      to: { path: '^src/modules/[^/]+/', pathNot: '^src/modules/[^/]+/index[.]ts$' },
    },
    {
      name: 'the-session-core-is-entered-through-its-index',
      severity: 'error',
      from: { path: '^src/', pathNot: ['^src/session-core/', '[.-]spec[.]ts$', '/testing/'] },
      to: { path: '^src/session-core/', pathNot: '^src/session-core/index[.]ts$' },
    },
    {
      name: 'the-engines-are-entered-through-their-index',
      severity: 'error',
      comment: "The engines' insides are their own: import src/engines/index.ts.",
      from: { path: '^src/', pathNot: ['^src/engines/', '[.-]spec[.]ts$', '/testing/'] },
      to: { path: '^src/engines/', pathNot: '^src/engines/index[.]ts$' },
    },
    {
      name: 'only-the-app-wires-the-gateway',
      severity: 'error',
      from: { path: '^src/', pathNot: ['^src/gateway/', '^src/[^/]+[.]ts$', '^src/bin/'] },
      to: { path: '^src/gateway/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '[.-]spec[.]ts$|/testing/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default'],
      extensions: ['.ts', '.js', '.json', '.node'],
    },
    reporterOptions: { text: { highlightFocused: true } },
  },
};
