// @ts-check
import eslint from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: [
      'dist/',
      'src/swagger-metadata.ts', // generated (scripts/swagger-metadata.mjs)
      '.scratch/',
      'node_modules/',
      'coverage/',
      'libs/pocketsphinx/build/',
      'libs/flite/build/',
      'data/',
      'bench/results/',
      'libs/client/dist/',
      'test-artifacts/',
    ],
  },
  eslint.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      globals: {
        process: 'readonly',
        console: 'readonly',
        Buffer: 'readonly',
        __dirname: 'readonly',
        require: 'readonly',
        module: 'writable',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
        setInterval: 'readonly',
        clearInterval: 'readonly',
        setImmediate: 'readonly',
      },
    },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-require-imports': 'off',
      // Configuration is read in one place only (src/config); everything else gets AppConfig injected.
      'no-restricted-properties': [
        'error',
        { object: 'process', property: 'env', message: 'Read configuration through AppConfig.' },
      ],
    },
  },
  {
    // The session core is plain TypeScript (scripts/check-layers.mjs checks the rest of the layering).
    files: ['src/session-core/**'],
    ignores: ['**/*.spec.ts', '**/*.medium-spec.ts', 'src/session-core/testing/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { group: ['@nestjs/*', 'typeorm', 'ws', 'pg'], message: 'The session core has no framework or I/O.' },
          ],
        },
      ],
    },
  },
  {
    files: [
      'src/config/**',
      'ormconfig.ts',
      'test/**',
      'bench/**',
      'scripts/**',
      '**/*.spec.ts',
      '**/*.medium-spec.ts',
      'libs/pglite-host/**',
    ],
    rules: { 'no-restricted-properties': 'off' },
  },
  {
    files: ['test/**', '**/*.spec.ts', '**/*.medium-spec.ts', 'bench/**'],
    rules: { '@typescript-eslint/no-explicit-any': 'off', '@typescript-eslint/no-non-null-assertion': 'off' },
  },
  {
    // No promise is dropped unhandled in the service: a rejection nobody awaits would end the process
    // (or, with the process guard, end nothing and be noticed by nobody). `void` marks one handled on purpose.
    files: ['src/**/*.ts'],
    ignores: ['**/*.spec.ts'],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: { '@typescript-eslint/no-floating-promises': 'error', '@typescript-eslint/no-misused-promises': 'error' },
  },
  {
    // Examples are standalone scripts a user runs with node: they read their settings from the environment.
    files: ['examples/**'],
    languageOptions: { globals: { fetch: 'readonly' } },
    rules: { 'no-restricted-properties': 'off' },
  },
);
