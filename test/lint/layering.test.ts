import assert from 'node:assert/strict';
import { describe, test } from 'vitest';
import { ESLint } from 'eslint';
import importX from 'eslint-plugin-import-x';
import tseslint from 'typescript-eslint';
import {
  apiStoreExceptions,
  apiStoreRules,
  layeringRules,
  layeringSettings,
} from '../../eslint.config.js';

/** ESLint with the layering rules alone, as they apply to src/. */
const eslint = new ESLint({
  overrideConfigFile: true,
  overrideConfig: [
    {
      files: ['**/*.ts'],
      languageOptions: { parser: tseslint.parser },
      plugins: { 'import-x': importX },
      settings: layeringSettings,
      rules: layeringRules,
    },
    {
      files: ['src/api/**/*.ts'],
      ignores: apiStoreExceptions,
      plugins: { '@typescript-eslint': tseslint.plugin },
      rules: apiStoreRules,
    },
  ],
});

/** The layering rules a file of that path with that source breaks. */
async function broken(filePath: string, source: string): Promise<string[]> {
  const [result] = await eslint.lintText(`${source}\n`, { filePath });
  return (result?.messages ?? []).map((m) => m.ruleId ?? m.message);
}

describe('the floors of src/ as lint rules', () => {
  const allowed: [string, string][] = [
    ['src/api/probe.ts', "import { createRun } from '../application/create-run.js';"],
    ['src/application/probe.ts', "import { findRun } from '../store/runs.js';"],
    [
      'src/activities/probe.ts',
      "import { connectionCredential } from '../application/connections.js';",
    ],
    ['src/temporal/probe.ts', "import { gateWorkflowType } from '../workflows/messages.js';"],
    ['src/store/probe.ts', "import { NotFoundError } from '../domain/errors.js';"],
    [
      'src/runner/probe.ts',
      "import type { ToolOrigin } from '../domain/tools/session-toolset.js';",
    ],
    ['src/runner/probe.ts', "import { listServerTools } from '../broker/tool-listing.js';"],
    ['src/application/probe.ts', "import { awaitToolCall } from './tool-call/await-answer.js';"],
    // The API reads through query modules and names any store type.
    ['src/api/routes/probe.ts', "import { findRun } from '../../store/queries/runs.js';"],
    ['src/api/web/probe.ts', "import type { Member } from '../../store/members.js';"],
    ['src/api/probe.ts', "import { type ApprovalRow } from '../store/approvals.js';"],
  ];
  const refused: [string, string, string][] = [
    // The domain is pure.
    [
      'src/domain/gate/probe.ts',
      "import { withTransaction } from '../../store/pool.js';",
      'import-x/no-restricted-paths',
    ],
    [
      'src/domain/probe.ts',
      "import { loadConfig } from '../config.js';",
      'import-x/no-restricted-paths',
    ],
    // Settings and telemetry sit below what they serve.
    [
      'src/config.ts',
      "import { EncryptionCodec } from './temporal/payload-codec.js';",
      'import-x/no-restricted-paths',
    ],
    [
      'src/telemetry/probe.ts',
      "import { gateWorkflowType } from '../workflows/messages.js';",
      'import-x/no-restricted-paths',
    ],
    // The store is below the use cases, which are below the entrances.
    [
      'src/store/probe.ts',
      "import { createRun } from '../application/create-run.js';",
      'import-x/no-restricted-paths',
    ],
    [
      'src/temporal/probe.ts',
      "import { revokeRunAs } from '../application/revoke-run.js';",
      'import-x/no-restricted-paths',
    ],
    [
      'src/application/probe.ts',
      "import { Problem } from '../api/problem.js';",
      'import-x/no-restricted-paths',
    ],
    // The API writes through use cases: the store's writes are out of its reach.
    [
      'src/api/routes/probe.ts',
      "import { insertSpendBudget } from '../../store/spend-budgets.js';",
      '@typescript-eslint/no-restricted-imports',
    ],
    [
      'src/api/probe.ts',
      "import { withTransaction, type Pool } from '../store/pool.js';",
      '@typescript-eslint/no-restricted-imports',
    ],
    [
      'src/api/web/probe.ts',
      "export { findRun } from '../../store/runs.js';",
      '@typescript-eslint/no-restricted-imports',
    ],
    // An entrance reaches a tool call's record only through the tool-call folder's door.
    [
      'src/api/routes/probe.ts',
      "import type { ToolCallRow } from '../../store/tool-calls.js';",
      'import-x/no-restricted-paths',
    ],
    // The runner imports nothing of the server.
    [
      'src/runner/probe.ts',
      "import { sessionToolset } from '../application/session-toolset.js';",
      'import-x/no-restricted-paths',
    ],
    [
      'src/runner/probe.ts',
      "import { CredentialSealer } from '../broker/sealing.js';",
      'import-x/no-restricted-paths',
    ],
    [
      'src/runner/mcp-proxy/probe.ts',
      "import { findRun } from '../../store/runs.js';",
      'import-x/no-restricted-paths',
    ],
    // No module reaches itself through its imports.
    [
      'src/application/tool-call/await-answer.ts',
      "import { awaitGateAnswer } from './gate-answer.js';",
      'import-x/no-cycle',
    ],
  ];
  for (const [file, source] of allowed) {
    test(`allowed in ${file}: ${source}`, async () => {
      assert.deepEqual(await broken(file, source), []);
    });
  }
  for (const [file, source, rule] of refused) {
    test(`refused in ${file} (${rule}): ${source}`, async () => {
      assert.deepEqual(await broken(file, source), [rule]);
    });
  }
});
