/** @type {import('jest').Config} */
module.exports = {
  displayName: 'api',
  testEnvironment: 'node',
  roots: ['<rootDir>/src', '<rootDir>/test'],
  testRegex: '\\.(spec|e2e-spec)\\.ts$',
  transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: '<rootDir>/tsconfig.json' }] },
  moduleNameMapper: {
    '^@taco/protocol$': '<rootDir>/../protocol/src/index.ts',
    '^@taco/protocol/e2e-crypto$': '<rootDir>/../protocol/src/e2e-crypto.ts',
  },
};
