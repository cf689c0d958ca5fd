// @ts-check
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

/**
 * Workflow code is replayed: it may import only what is listed here, and activities as types
 * (and the typed search attribute keys, which the workflow package does not re-export).
 * An allow-list, so a new import is a decision made here, never one that slips through.
 * @type {import('eslint').Linter.RulesRecord}
 */
export const workflowImportRules = {
  '@typescript-eslint/no-restricted-imports': [
    'error',
    {
      patterns: [
        {
          regex:
            '^(?!(@temporalio/(workflow|common/lib/search-attributes\\.js)|\\./[a-z-]+\\.js|\\.\\./domain/gate/(vocabulary|decisions)\\.js|\\.\\./activities/[a-z-]+\\.js)$)',
          message:
            'Workflow code may import only @temporalio/workflow, search attribute keys, its own modules, the gate vocabulary and decisions, and activity types.',
        },
        {
          regex: '^\\.\\./activities/',
          allowTypeImports: true,
          message: 'Workflow code may import only the types of activities.',
        },
      ],
    },
  ],
};

export default tseslint.config(
  { ignores: ['node_modules/', '.tools/', '.data/', 'test-artifacts/', 'dist/'] },
  js.configs.recommended,
  ...tseslint.configs.strictTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/restrict-template-expressions': ['error', { allowNumber: true }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
    },
  },
  { files: ['src/workflows/**/*.ts'], rules: workflowImportRules },
  {
    files: ['test/**/*.ts'],
    rules: {
      '@typescript-eslint/no-floating-promises': [
        'error',
        {
          allowForKnownSafeCalls: [
            { from: 'package', name: ['test', 'it', 'describe', 'suite'], package: 'node:test' },
          ],
        },
      ],
      // npm test runs several files in one process and gathers each file's tests into a suite of
      // its own by replacing node:test's named exports (tools/test/shard.ts): a default or
      // namespace import would reach the originals and register at the top of the process.
      'no-restricted-syntax': [
        'error',
        {
          selector:
            "ImportDeclaration[source.value='node:test'] > :matches(ImportDefaultSpecifier, ImportNamespaceSpecifier)",
          message: "Import node:test's functions by name: import { test } from 'node:test'.",
        },
      ],
      '@typescript-eslint/no-non-null-assertion': 'off',
      // Response bodies are JSON of the shape under test; the assertions check it.
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
    },
  },
  { files: ['eslint.config.js', 'bin/*.js'], ...tseslint.configs.disableTypeChecked },
);
