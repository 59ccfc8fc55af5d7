/**
 * `npm run test:compose`: the docker-compose stack for real (needs a Docker engine and
 * docker-compose or `docker compose`). Not a project of the root jest.config.js, so `npm test`
 * never needs Docker. CI: `npm run test:compose -- --json --outputFile=…`.
 * @type {import('jest').Config}
 */
module.exports = {
  displayName: 'compose',
  rootDir: '..',
  testEnvironment: 'node',
  roots: ['<rootDir>/compose'],
  testRegex: '\\.compose-spec\\.ts$',
  transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: '<rootDir>/tsconfig.json' }] },
  moduleNameMapper: { '^@taco/protocol$': '<rootDir>/../protocol/src/index.ts' },
  // One stack, one scenario after another; each wait inside is bounded on its own.
  maxWorkers: 1,
  testTimeout: 180_000,
};
