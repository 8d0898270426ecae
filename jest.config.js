/** Unit specs sit beside the code (src/, libs/); end-to-end specs live in test/. */
module.exports = {
  rootDir: '.',
  testEnvironment: '<rootDir>/test/support/node-environment.js',
  setupFiles: ['reflect-metadata'],
  testMatch: ['<rootDir>/{src,libs}/**/*.spec.ts', '<rootDir>/test/**/*.e2e-spec.ts'],
  moduleFileExtensions: ['ts', 'js', 'json', 'node'],
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  transform: {
    '^.+\\.ts$': [
      'ts-jest',
      {
        tsconfig: 'tsconfig.json',
        diagnostics: { ignoreCodes: [151002] },
        astTransformers: { before: ['<rootDir>/test/support/swagger-plugin.jest.js'] },
      },
    ],
    // ES-module-only dependencies (test/support/esm-to-cjs.jest.js says why).
    '/node_modules/content-disposition/.+\\.js$': '<rootDir>/test/support/esm-to-cjs.jest.js',
  },
  transformIgnorePatterns: ['/node_modules/(?!content-disposition/)'],
  testTimeout: 60_000,
  maxWorkers: 2,
  // A worker that has run many files holds a large heap (ts-jest's compiler, each file's modules),
  // and node frees it at exit: ~270 ms for a worker that ran one small spec, past jest's default
  // 500 ms under load, when jest kills it and reports a leak that is not there. A real leak (a handle
  // left open) still holds its worker past this and is still reported.
  workerGracefulExitTimeout: 5_000,
};
