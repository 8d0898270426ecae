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
  },
  testTimeout: 60_000,
  maxWorkers: 2,
};
