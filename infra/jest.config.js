/** @type {import('jest').Config} */
module.exports = {
  displayName: 'infra',
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testRegex: '\\.e2e-spec\\.ts$',
  transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: '<rootDir>/tsconfig.json' }] },
  moduleNameMapper: { '^@taco/protocol$': '<rootDir>/../protocol/src/index.ts' },
  setupFilesAfterEnv: ['<rootDir>/test/support/timeout.ts'],
};
