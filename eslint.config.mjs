// @ts-check
import js from '@eslint/js';
import prettier from 'eslint-config-prettier';
import reactHooks from 'eslint-plugin-react-hooks';
import globals from 'globals';
import tseslint from 'typescript-eslint';

const NO_SKIPPED_TESTS = {
  selector:
    'CallExpression[callee.object.name=/^(it|test|describe)$/][callee.property.name=/^(skip|only|todo)$/]',
  message: 'Skipped or focused tests hide gaps.',
};

const KEYED =
  'key it by `keyOf` (web/src/common/keyed.ts): `constructor` or `__proto__` is a valid name';

export default tseslint.config(
  {
    ignores: [
      '**/dist/**',
      '**/coverage/**',
      '**/node_modules/**',
      'artifacts/**',
      'loadtest/k6/protocol.js',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
      globals: { ...globals.node },
    },
    rules: {
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' },
      ],
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      'no-restricted-syntax': ['error', NO_SKIPPED_TESTS],
    },
  },
  {
    files: ['**/*.{js,mjs,cjs}'],
    ...tseslint.configs.disableTypeChecked,
  },
  {
    files: ['**/*.cjs', '**/jest.config.js'],
    languageOptions: { sourceType: 'commonjs', globals: { ...globals.node } },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    files: ['protocol/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: ['@taco/*', '../api/*', '../web/*', 'node:*'] },
      ],
    },
  },
  {
    // The contract runs in browsers; its specs run in Node and may check it against Node's own
    // implementations (the encryption's test vectors against node:crypto).
    files: ['protocol/**/*.spec.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: ['@taco/*', '../api/*', '../web/*'] }],
    },
  },
  {
    files: ['api/**/*.ts'],
    rules: {
      // Decorator metadata needs value imports of injected classes.
      '@typescript-eslint/consistent-type-imports': 'off',
      'no-restricted-imports': ['error', { patterns: ['@taco/web', '**/web/src/**'] }],
    },
  },
  {
    // The per-frame path (frame handling, write turns, the bus and its drivers) is plain
    // TypeScript: Nest wires it at boot and never runs per frame.
    files: [
      'api/src/bus/**/*.ts',
      'api/src/chat/{chat-connection,room-frame-handler,text-frame,write-turn}.ts',
    ],
    ignores: ['**/*.module.ts', '**/*.spec.ts', 'api/src/bus/redis/redis-connections.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { group: ['@taco/web', '**/web/src/**'] },
            { group: ['@nestjs/*'], message: 'No Nest on the per-frame path.' },
          ],
        },
      ],
    },
  },
  {
    files: ['api/src/**/*.ts'],
    ignores: ['api/src/config/**'],
    rules: {
      'no-restricted-properties': [
        'error',
        { object: 'process', property: 'env', message: 'Only config/ reads the environment.' },
      ],
    },
  },
  {
    files: ['web/**/*.{ts,tsx}'],
    plugins: { 'react-hooks': reactHooks },
    languageOptions: { globals: { ...globals.browser } },
    rules: {
      ...reactHooks.configs.recommended.rules,
      'no-restricted-imports': [
        'error',
        {
          patterns: ['@taco/api', '**/api/src/**'],
        },
      ],
    },
  },
  {
    // Store state is plain JSON: a map from a room id, a name or a client_id to anything is a
    // plain object, where those strings must never be keys as they are.
    files: ['web/src/features/**/*Slice.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        NO_SKIPPED_TESTS,
        {
          selector: 'TSTypeReference[typeName.name="Record"] > * > TSStringKeyword:first-child',
          message: `A Record<string, …> in the store: ${KEYED}.`,
        },
        {
          selector: 'TSIndexSignature TSStringKeyword',
          message: `A string index signature in the store: ${KEYED}.`,
        },
        {
          selector: 'CallExpression[callee.name="createEntityAdapter"] > * > TSStringKeyword',
          message: `An entity adapter with string ids looks them up with \`in\`: ${KEYED}.`,
        },
      ],
    },
  },
  {
    files: ['**/*.spec.ts', '**/*.test.ts', '**/*.test.tsx', '**/*.e2e-spec.ts', '**/test/**/*.ts'],
    rules: {
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-non-null-assertion': 'off',
      '@typescript-eslint/unbound-method': 'off',
    },
  },
  prettier,
);
