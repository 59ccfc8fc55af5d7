/** @type {import('jest').Config} */
module.exports = {
  displayName: 'web',
  testEnvironment: 'jest-fixed-jsdom',
  roots: ['<rootDir>/src'],
  setupFilesAfterEnv: ['<rootDir>/test/setup.ts'],
  moduleFileExtensions: ['ts', 'tsx', 'js', 'mjs', 'cjs', 'json'],
  transform: {
    '^.+\\.tsx?$': [
      'ts-jest',
      {
        tsconfig: {
          jsx: 'react-jsx',
          module: 'commonjs',
          esModuleInterop: true,
          isolatedModules: true,
        },
      },
    ],
    // MSW 2 depends on ESM-only packages (.mjs files, and until-async): those are compiled to CommonJS.
    '^.+\\.m?js$': [
      'ts-jest',
      { tsconfig: { allowJs: true, module: 'commonjs', isolatedModules: true } },
    ],
    '^.+\\.css$': '<rootDir>/test/cssTransform.cjs',
  },
  transformIgnorePatterns: ['/node_modules/(?!until-async/).+\\.(js|cjs|json)$'],
  moduleNameMapper: {
    '^@taco/protocol$': '<rootDir>/../protocol/src/index.ts',
    '^@taco/protocol/testing$': '<rootDir>/../protocol/src/testing/growth.ts',
    '^@taco/protocol/e2e-crypto$': '<rootDir>/../protocol/src/e2e-crypto.ts',
    // `import.meta.env` does not exist under Jest; every import of common/config goes through `../common/config`.
    '^(\\.\\./)+common/config$': '<rootDir>/test/config.ts',
    // The lazily loaded pages and the room's chat view, loaded at once (see test/pages.ts).
    '^(\\./|(\\.\\./)+features/)pages$': '<rootDir>/test/pages.ts',
    '^\\./chatRoomChunk$': '<rootDir>/test/chatRoomChunk.ts',
  },
};
