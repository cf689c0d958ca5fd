import assert from 'node:assert/strict';
import { test } from 'vitest';
import type {
  AgentInput,
  BashInput,
  FileEditInput,
  FileReadInput,
  FileWriteInput,
  GlobInput,
  GrepInput,
  NotebookEditInput,
  WebFetchInput,
  WebSearchInput,
} from '@anthropic-ai/claude-agent-sdk/sdk-tools';
import { validateArguments } from '../../../src/domain/tools/argument-validation.js';
import { guardToolSchemas } from '../../../src/domain/tools/schema-guard.js';
import {
  agentBuiltInTools,
  builtInToolEffect,
} from '../../../src/domain/tools/agent-built-in-tools.js';
import { declaredToolSchema, photographDeclaredTool } from '../../../src/domain/tools/tools.js';

const tools = agentBuiltInTools.map((tool) =>
  photographDeclaredTool(declaredToolSchema.parse(tool)),
);
const byName = new Map(tools.map((tool) => [tool.name, tool]));

test("the agent's built-in tools are a valid declared bundle whose every schema passes the guard", () => {
  assert.ok(tools.length >= 20, `${tools.length} tools`);
  assert.deepEqual([...guardToolSchemas(tools)], []);
  for (const name of ['Bash', 'Read', 'Write', 'Edit', 'Glob', 'Grep', 'WebFetch', 'Agent']) {
    assert.ok(byName.has(name), `${name} is offered`);
  }
});

test('effects are a hand-written table: reads read, everything else and anything unknown writes', () => {
  const effects = Object.fromEntries(tools.map((tool) => [tool.name, tool.effect]));
  for (const name of ['Read', 'Glob', 'Grep', 'ToolSearch', 'Agent'])
    assert.equal(effects[name], 'read', name);
  for (const name of ['Bash', 'Write', 'Edit', 'NotebookEdit', 'WebFetch', 'WebSearch', 'Monitor'])
    assert.equal(effects[name], 'write', name);
  assert.equal(builtInToolEffect('SomeToolOfALaterSdk'), 'write');
});

// Inputs typed by the SDK's own published input types, every field the sent schemas carry filled
// in: the bundle must accept each of them (a stricter copy that denies a legitimate call is a bug).
const legitimateInputs: Record<string, unknown> = {
  Bash: {
    command: 'ls -la',
    description: 'List files',
    timeout: 120000,
    run_in_background: false,
    dangerouslyDisableSandbox: false,
  } satisfies BashInput,
  Read: {
    file_path: '/srv/repo/a.pdf',
    offset: 10,
    limit: 20,
    pages: '1-5',
    allow_large: true,
  } satisfies FileReadInput,
  Write: { file_path: '/srv/repo/a.txt', content: 'x' } satisfies FileWriteInput,
  Edit: {
    file_path: '/srv/repo/a.txt',
    old_string: 'a',
    new_string: 'b',
    replace_all: true,
  } satisfies FileEditInput,
  Glob: { pattern: '**/*.ts', path: '/srv/repo' } satisfies GlobInput,
  Grep: {
    pattern: 'x',
    path: '/srv/repo',
    glob: '*.ts',
    output_mode: 'content',
    '-B': 1,
    '-A': 1,
    '-C': 2,
    context: 2,
    '-n': true,
    '-i': true,
    '-o': false,
    type: 'ts',
    head_limit: 10,
    offset: 5,
    multiline: false,
  } satisfies GrepInput,
  NotebookEdit: {
    notebook_path: '/srv/repo/a.ipynb',
    cell_id: 'c1',
    new_source: 'print(1)',
    cell_type: 'code',
    edit_mode: 'replace',
  } satisfies NotebookEditInput,
  WebFetch: { url: 'https://example.com', prompt: 'summarise', offset: 1 } satisfies WebFetchInput,
  WebSearch: {
    query: 'gate docs',
    allowed_domains: ['example.com'],
    blocked_domains: ['example.org'],
  } satisfies WebSearchInput,
  Agent: {
    description: 'Find tests',
    prompt: 'Find the tests',
    subagent_type: 'general-purpose',
    model: 'sonnet',
    effort: 'low',
    run_in_background: false,
    isolation: 'worktree',
  } satisfies AgentInput,
};

test('every field the SDK puts in its tool inputs is accepted', () => {
  for (const [name, input] of Object.entries(legitimateInputs)) {
    const tool = byName.get(name);
    assert.ok(tool, name);
    const result = validateArguments(tool.input_schema, tool.digest, input);
    assert.ok(result.valid, `${name}: ${result.valid ? '' : result.message}`);
  }
});

test('the schemas stay strict: an unknown field or a missing required one is refused', () => {
  const bash = byName.get('Bash')!;
  assert.equal(
    validateArguments(bash.input_schema, bash.digest, { command: 'ls', x: 1 }).valid,
    false,
  );
  assert.equal(validateArguments(bash.input_schema, bash.digest, {}).valid, false);
});
