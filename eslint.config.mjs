import js from '@eslint/js';
import tseslint from 'typescript-eslint';

const frameworkImports = {
  patterns: [
    { group: ['@nestjs/*', 'typeorm', 'typeorm/*', 'bullmq', '@nestjs/bullmq', 'express'], message: 'domain/ and engine/ stay free of Nest, TypeORM, BullMQ and Express.' },
  ],
};

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'data/**', 'coverage/**', 'src/web/static/**', '.cache/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-explicit-any': 'error',
    },
  },
  // Every promise is awaited, returned, or voided on purpose: an unhandled rejection ends a Node process.
  {
    files: ['src/**/*.ts', 'test/**/*.ts', 'bench/**/*.ts'],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: { '@typescript-eslint/no-floating-promises': 'error', '@typescript-eslint/no-misused-promises': 'error' },
  },
  // The dependency rule of the hexagon: domain code and the engine import no framework.
  { files: ['src/modules/*/domain/**/*.ts', 'src/engine/**/*.ts'], rules: { 'no-restricted-imports': ['error', frameworkImports] } },
  // Configuration is read in one place: src/config. The engine gets its ffmpeg builds from the entry point
  // (useMediaBinaries) and its children get theirs in their launch argument. The `backdrop` client CLI is a
  // separate program (BACKDROP_URL / BACKDROP_KEY), not the service's configuration.
  {
    files: ['src/**/*.ts'],
    ignores: ['src/config/**'],
    rules: { 'no-restricted-properties': ['error', { object: 'process', property: 'env', message: 'Read configuration from the injected AppConfig (src/config), not process.env.' }] },
  },
  { files: ['test/**/*.ts', 'bench/**/*.ts', '**/*.spec.ts'], rules: { '@typescript-eslint/no-non-null-assertion': 'off' } },
  // Plain CommonJS tooling files (Jest transformer, config).
  {
    files: ['**/*.js'],
    languageOptions: { sourceType: 'commonjs', globals: { require: 'readonly', module: 'writable', __dirname: 'readonly', __filename: 'readonly', process: 'readonly' } },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
);
