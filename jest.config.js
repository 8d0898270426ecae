/**
 * Three tiers, each its own Jest project (`--selectProjects unit|medium|e2e`):
 * - unit (`*.spec.ts` beside the code in src/ and libs/): one class or function, no I/O;
 * - medium (`*.medium-spec.ts` beside the code, or in test/ when it spans modules): one module through
 *   Nest's DI (`Test.createTestingModule`) with its real providers and a real migrated database;
 * - e2e (`test/**\/*.e2e-spec.ts`): the whole app over real sockets.
 */
const shared = {
  rootDir: '.',
  testEnvironment: '<rootDir>/test/support/node-environment.js',
  setupFiles: ['reflect-metadata'],
  moduleFileExtensions: ['ts', 'js', 'json', 'node'],
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  transform: {
    // Each file transpiled alone (tsconfig.jest.json: isolatedModules, CommonJS): no type checker per
    // worker, which cost ~6 s for each worker jest started. Types are checked by `npm run lint` (tsc);
    // the swagger plugin's output is src/swagger-metadata.ts, loaded at setup.
    '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.jest.json', diagnostics: { ignoreCodes: [151002] } }],
  },
};

module.exports = {
  projects: [
    { ...shared, displayName: 'unit', testMatch: ['<rootDir>/{src,libs}/**/*.spec.ts'] },
    { ...shared, displayName: 'medium', testMatch: ['<rootDir>/{src,test}/**/*.medium-spec.ts'] },
    { ...shared, displayName: 'e2e', testMatch: ['<rootDir>/test/**/*.e2e-spec.ts'] },
  ],
  // Global: a project's own testTimeout is not applied to its hooks.
  testTimeout: 60_000,
  maxWorkers: 2,
  // A worker that has run many files holds a large heap (ts-jest's compiler, each file's modules),
  // and node frees it at exit: ~270 ms for a worker that ran one small spec, past jest's default
  // 500 ms under load, when jest kills it and reports a leak that is not there. A real leak (a handle
  // left open) still holds its worker past this and is still reported.
  workerGracefulExitTimeout: 5_000,
  // Each file leaves its modules (and what it kept alive) in the worker; over ~180 files a worker reached
  // 4.4 GB, spent its time in the collector (database probes and hooks then timed out) and finally ran out
  // of memory. A worker above this after a file is replaced by a fresh one.
  workerIdleMemoryLimit: '1GB',
};
