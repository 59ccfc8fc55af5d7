/**
 * `npm run test:load`: the k6 scripts for real (k6 on the PATH, redis-server and nginx installed,
 * a built project). Not a project of the root jest.config.js, so `npm test` never runs k6.
 * CI: `npm run test:load -- --ci --json --outputFile=…`.
 * @type {import('jest').Config}
 */
module.exports = {
  displayName: 'k6',
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testRegex: '\\.k6-spec\\.ts$',
  transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: '<rootDir>/../tsconfig.json' }] },
  moduleNameMapper: { '^@taco/protocol$': '<rootDir>/../../protocol/src/index.ts' },
  // One cluster and one k6 at a time: the machine is shared, and k6 runs are load.
  maxWorkers: 1,
  testTimeout: 180_000,
};
