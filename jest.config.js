/**
 * One Jest configuration, one test taxonomy (README "Tests"). Each tier is a Jest project, so
 * `jest --selectProjects unit` runs one tier; `npm test` runs the fast tiers first:
 *
 *   unit         pure code and use cases on in-memory adapters: no Postgres, no Redis, no ffmpeg
 *   contract     one suite per port, run against every adapter of that port
 *   integration  real Postgres / Redis / ffmpeg / models behind one component (engine, queue, worker)
 *   e2e          the HTTP API (and the CLI) end to end, fake or local worker
 *   browser      the dashboard in headless Chromium
 *   faults       kill -9, restarts, crashes between commit and enqueue
 *   fuzz         requests generated from the OpenAPI document
 */
// The suite opens ONNX Runtime sessions in its own processes: its telemetry off there as in the
// engine's (src/engine/runner/engine-environment.ts). Jest's workers inherit this.
process.env.ORT_DISABLE_TELEMETRY ??= '1';

const base = {
  rootDir: '.',
  testEnvironment: 'node',
  moduleFileExtensions: ['ts', 'js', 'mjs', 'json'],
  transform: {
    '^.+\\.ts$': ['<rootDir>/test/support/ts.transform.js', { tsconfig: 'tsconfig.jest.json' }],
    // TensorFlow.js's CPU kernels, which the converter tests compare against: Math bound (see the transformer's comment)
    '/node_modules/@tensorflow/.+\\.js$': '<rootDir>/test/support/math-binding.transform.js',
    // ESM-only dependencies (see the transformer's comment)
    '^.+\\.m?js$': '<rootDir>/test/support/esm-package.transform.js',
  },
  transformIgnorePatterns: ['/node_modules/(?!(@nestjs|typeorm|bullmq|@tensorflow)/)'],
  setupFiles: ['reflect-metadata'],
  testTimeout: 60000,
};

const tier = (displayName, testMatch, testPathIgnorePatterns = [], extra = {}) => ({ ...base, displayName, testMatch, testPathIgnorePatterns: ['/node_modules/', ...testPathIgnorePatterns], ...extra });

const FAULTS = ['<rootDir>/test/faults/', '<rootDir>/test/integration/remote-worker\\.faults\\.spec\\.ts$'];

module.exports = {
  testTimeout: 60000,
  testSequencer: '<rootDir>/test/support/slow-first.sequencer.js',
  projects: [
    // the unit tier refuses any connection to Postgres or Redis (test/support/unit-tier.setup.ts)
    tier('unit', ['<rootDir>/src/**/*.spec.ts', '<rootDir>/test/unit/**/*.spec.ts', '<rootDir>/test/engine/unit/**/*.spec.ts', '<rootDir>/test/security/address-policy.spec.ts', '<rootDir>/test/cli/cli-options.spec.ts'], [], {
      setupFilesAfterEnv: ['<rootDir>/test/support/unit-tier.setup.ts'],
    }),
    tier('contract', ['<rootDir>/test/contract/**/*.spec.ts']),
    tier(
      'integration',
      ['<rootDir>/test/integration/**/*.spec.ts', '<rootDir>/test/engine/**/*.spec.ts', '<rootDir>/test/bench/**/*.spec.ts', '<rootDir>/test/security/outbound-client.spec.ts'],
      ['<rootDir>/test/engine/unit/', ...FAULTS],
    ),
    tier('e2e', ['<rootDir>/test/e2e/**/*.spec.ts', '<rootDir>/test/billing/**/*.spec.ts', '<rootDir>/test/webhooks/**/*.spec.ts', '<rootDir>/test/usage/**/*.spec.ts', '<rootDir>/test/security/**/*.e2e.spec.ts', '<rootDir>/test/cli/backdrop-cli.spec.ts']),
    tier('browser', ['<rootDir>/test/browser/**/*.spec.ts']),
    tier('faults', ['<rootDir>/test/faults/**/*.spec.ts', '<rootDir>/test/integration/remote-worker.faults.spec.ts']),
    tier('fuzz', ['<rootDir>/test/fuzz/**/*.spec.ts']),
  ],
};
