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
            '^(?!(@temporalio/(workflow|common/lib/search-attributes\\.js|interceptors-opentelemetry/lib/workflow/index\\.js)|\\./[a-z-]+\\.js|\\.\\./domain/gate/(vocabulary|decisions)\\.js|\\.\\./activities/[a-z-]+\\.js)$)',
          message:
            'Workflow code may import only @temporalio/workflow, search attribute keys, the OpenTelemetry workflow interceptors, its own modules, the gate vocabulary and decisions, and activity types.',
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
      // Tests run on vitest: a file still on node:test would register with no runner at all.
      'no-restricted-imports': [
        'error',
        {
          paths: [
            {
              name: 'node:test',
              message: "Tests run on vitest: import { test, describe, beforeAll } from 'vitest'.",
            },
          ],
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
