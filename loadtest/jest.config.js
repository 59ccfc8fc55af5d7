/** @type {import('jest').Config} */
module.exports = {
  displayName: 'loadtest',
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testRegex: '\\.(spec|e2e-spec)\\.ts$',
  // ts-jest also compiles the k6 build of the protocol (plain ES module .js) so a test can import it.
  transform: { '^.+\\.[tj]s$': ['ts-jest', { tsconfig: '<rootDir>/tsconfig.json' }] },
  transformIgnorePatterns: ['/node_modules/'],
  moduleNameMapper: { '^@taco/protocol$': '<rootDir>/../protocol/src/index.ts' },
};
