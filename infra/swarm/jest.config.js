/**
 * `npm run test:swarm`: infra/swarm/stack.yml on Docker Swarm for real (needs a Docker engine,
 * docker-compose or `docker compose` to build the images; it creates a one-node swarm when the
 * engine is in none, and leaves it afterwards). Not a project of the root jest.config.js, so
 * `npm test` never needs Docker. CI: `npm run test:swarm -- --json --outputFile=…`.
 * @type {import('jest').Config}
 */
module.exports = {
  displayName: 'swarm',
  rootDir: '..',
  testEnvironment: 'node',
  roots: ['<rootDir>/swarm'],
  testRegex: '\\.swarm-spec\\.ts$',
  transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: '<rootDir>/tsconfig.json' }] },
  moduleNameMapper: { '^@taco/protocol$': '<rootDir>/../protocol/src/index.ts' },
  // One stack, one scenario after another; each wait inside is bounded on its own.
  maxWorkers: 1,
  testTimeout: 420_000,
};
