/**
 * Browser end-to-end tests: the real built server (api/dist, web/dist) and headless Chromium.
 * Run from the repository root after `npm run build`: `npx jest -c web/e2e/jest.config.cjs`.
 * @type {import('jest').Config}
 */
module.exports = {
  displayName: 'web-e2e',
  rootDir: '.',
  testEnvironment: 'node',
  testMatch: ['<rootDir>/**/*.e2e.test.ts'],
  maxWorkers: 1,
  transform: {
    '^.+\\.ts$': [
      'ts-jest',
      { tsconfig: { module: 'commonjs', esModuleInterop: true, isolatedModules: true } },
    ],
  },
};
