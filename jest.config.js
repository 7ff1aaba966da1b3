/** One Jest configuration: unit specs beside the code, integration/contract/e2e suites under test/. */
module.exports = {
  rootDir: '.',
  testEnvironment: 'node',
  moduleFileExtensions: ['ts', 'js', 'mjs', 'json'],
  testMatch: ['<rootDir>/src/**/*.spec.ts', '<rootDir>/test/**/*.spec.ts'],
  transform: {
    '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.jest.json' }],
    // ESM-only dependencies (see the transformer's comment)
    '^.+\\.m?js$': '<rootDir>/test/support/esm-package.transform.js',
  },
  transformIgnorePatterns: ['/node_modules/(?!(@nestjs|typeorm|bullmq)/)'],
  testTimeout: 60000,
  setupFiles: ['reflect-metadata'],
};
