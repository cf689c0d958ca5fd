// @ts-check
import js from '@eslint/js';
import { createTypeScriptImportResolver } from 'eslint-import-resolver-typescript';
import importX from 'eslint-plugin-import-x';
import tseslint from 'typescript-eslint';

/**
 * The floors of `src/`, lowest first. A room imports its own files and the rooms of the floors
 * below it, never a room above: the domain is pure; settings and telemetry serve everything;
 * the store and the broker are the I/O below every use case; the workflows and their Temporal
 * client share message definitions; use cases (`application/`) sit on those; the entrances
 * (HTTP routes, Temporal activities, the worker, the command line) call use cases. `runner/` is
 * not a floor: it is the code a sandbox embeds, and imports nothing of the server.
 */
export const floors = [
  ['domain'],
  ['config.ts'],
  ['telemetry'],
  ['store', 'broker'],
  ['workflows', 'temporal'],
  ['application'],
  ['activities', 'api', 'cli', 'worker.ts'],
];

/** What the runner may import of the server's rooms: the MCP client pieces it shares. */
export const runnerMayImport = ['broker/tool-listing.ts', 'broker/stdio-process-transport.ts'];

const rooms = floors.flat();
const at = (/** @type {string} */ room) => `./src/${room}`;

/**
 * The layering as lint rules: a zone per room forbids the rooms above it, one zone keeps the
 * runner off the server, and no module reaches itself through its imports.
 * @type {import('eslint').Linter.RulesRecord}
 */
export const layeringRules = {
  'import-x/no-restricted-paths': [
    'error',
    {
      zones: [
        ...floors.flatMap((floor, level) =>
          floor.flatMap((room) => {
            // Workflows import the activities' types, which their own allow-list admits alone.
            const above = floors
              .slice(level + 1)
              .flat()
              .filter((other) => !(room === 'workflows' && other === 'activities'));
            if (above.length === 0) return [];
            return [
              {
                target: at(room),
                from: above.map(at),
                message: `${room} is on a lower floor: it may not import ${above.join(', ')} (eslint.config.js, floors).`,
              },
            ];
          }),
        ),
        // A tool call's record is reached through its one door, by every entrance alike.
        {
          target: at('api'),
          from: ['store/tool-calls.ts', 'store/decisions.ts', 'store/mcp-calls.ts'].map(at),
          message:
            "an entrance reaches a tool call's record only through ToolCalls (src/application/tool-call/).",
        },
        ...rooms.map((room) => ({
          target: at('runner'),
          from: at(room),
          except:
            room === 'domain'
              ? ['.']
              : runnerMayImport
                  .filter((allowed) => allowed.startsWith(`${room}/`))
                  .map((allowed) => `./${allowed.slice(room.length + 1)}`),
          message: 'runner code is embedded in sandboxes: it imports nothing of the server.',
        })),
      ],
    },
  ],
  'import-x/no-cycle': ['error', { ignoreExternal: true }],
};

/**
 * One door down from the API: a write goes through a use case (`application/`), a read may go
 * to the store's query modules (`store/queries/`), and any store type may be named.
 * @type {import('eslint').Linter.RulesRecord}
 */
export const apiStoreRules = {
  '@typescript-eslint/no-restricted-imports': [
    'error',
    {
      patterns: [
        {
          regex: '^(\\.\\./)+store/(?!queries/)',
          allowTypeImports: true,
          message:
            'The API writes through a use case (src/application/) and reads through a query module (src/store/queries/); of the rest of the store it imports types only.',
        },
      ],
    },
  ],
};

/**
 * API files that still reach the store directly: the entry point opens the pool every door
 * shares; the bearer checks and the MCP endpoint read runs, members and MCP sessions in place.
 */
export const apiStoreExceptions = ['src/api/main.ts', 'src/api/auth.ts', 'src/api/mcp/**'];

/** Where the layering rules look: the TypeScript resolver reads `.js` imports as `.ts` files. */
export const layeringSettings = {
  'import-x/resolver-next': [createTypeScriptImportResolver({ project: './tsconfig.json' })],
  // The modules imported are read too (to follow cycles through them), with the same parser.
  'import-x/parsers': { '@typescript-eslint/parser': ['.ts'] },
  'import-x/extensions': ['.ts', '.js'],
};

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
  {
    files: ['src/**/*.ts'],
    plugins: { 'import-x': importX },
    settings: layeringSettings,
    rules: layeringRules,
  },
  { files: ['src/workflows/**/*.ts'], rules: workflowImportRules },
  { files: ['src/api/**/*.ts'], ignores: apiStoreExceptions, rules: apiStoreRules },
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
