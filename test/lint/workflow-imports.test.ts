import assert from 'node:assert/strict';
import { describe, test } from 'vitest';
import { ESLint } from 'eslint';
import tseslint from 'typescript-eslint';
import { workflowImportRules } from '../../eslint.config.js';

/** ESLint with the workflow import rule alone, as it applies to src/workflows/. */
const eslint = new ESLint({
  overrideConfigFile: true,
  overrideConfig: [
    {
      files: ['**/*.ts'],
      languageOptions: { parser: tseslint.parser },
      plugins: { '@typescript-eslint': tseslint.plugin },
      rules: workflowImportRules,
    },
  ],
});

async function refused(source: string): Promise<boolean> {
  const [result] = await eslint.lintText(`${source}\n`, { filePath: 'src/workflows/probe.ts' });
  return (result?.messages ?? []).some(
    (m) => m.ruleId === '@typescript-eslint/no-restricted-imports',
  );
}

describe('workflow code imports only what the allow-list names', () => {
  const allowed = [
    "import { condition } from '@temporalio/workflow';",
    "import { toolCallUpdate } from './messages.js';",
    "import { decisionFromPolicy } from '../domain/gate/decisions.js';",
    "import type { GateRequest } from '../domain/gate/vocabulary.js';",
    "import type { GateActivities } from '../activities/index.js';",
    "import { defineSearchAttributeKey } from '@temporalio/common/lib/search-attributes.js';",
  ];
  const forbidden = [
    "import { createActivities } from '../activities/index.js';",
    "import { withTransaction } from '../store/pool.js';",
    "import { schemaVerdict } from '../domain/gate/stage-verdicts.js';",
    "import { validateArguments } from '../domain/tools/argument-validation.js';",
    "import { digestOf } from '../domain/ledger/digest.js';",
    "import { loadConfig } from '../config.js';",
    "import { something } from './nested/deeper.js';",
    "import { readFileSync } from 'node:fs';",
    "import pg from 'pg';",
    "import { Client } from '@temporalio/client';",
    "import { ApplicationFailure } from '@temporalio/common';",
  ];
  for (const source of allowed) {
    test(`allowed: ${source}`, async () => {
      assert.equal(await refused(source), false);
    });
  }
  for (const source of forbidden) {
    test(`refused: ${source}`, async () => {
      assert.equal(await refused(source), true);
    });
  }
});
