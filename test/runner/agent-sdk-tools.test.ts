/**
 * The demo bundle's built-in tools against what the installed agent SDK really sends: a run of
 * the SDK (its model the scripted fake upstream) wired as `gateQueryOptions` wires it. When an
 * SDK upgrade adds a tool or changes a schema, this fails until `npm run capture-agent-tools`
 * is run again.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, test } from 'vitest';
import { BUILTIN_TOOL_NAMES, query } from '@anthropic-ai/claude-agent-sdk';
import { agentBuiltInTools, agentSdkVersion } from '../../src/domain/tools/agent-built-in-tools.js';
import { GateClient } from '../../src/runner/gate-client.js';
import { gateQueryOptions } from '../../src/runner/gate-query-options.js';
import { agentScript, offersTools, startFakeAnthropic, text } from '../support/fake-anthropic.js';

interface SentTool {
  name: string;
  input_schema?: Record<string, unknown>;
  defer_loading?: boolean;
}

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'agent-sdk-tools-'));
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

/** The tools the SDK offers the model on its first request, and the session's tool list. */
async function offered(options: { tools?: string[]; env?: Record<string, string> }) {
  const fake = await startFakeAnthropic(agentScript([text('done')]));
  // The gate is never asked: the model only answers with text.
  const client = new GateClient({
    baseUrl: 'http://127.0.0.1:9',
    sessionId: 's',
    sessionToken: 't',
  });
  const gated = await gateQueryOptions(client, { mcpProxy: false });
  let session: string[] = [];
  try {
    for await (const message of query({
      prompt: 'Say done.',
      options: {
        ...gated,
        cwd: dir,
        ...(options.tools && { tools: options.tools }),
        env: {
          ...process.env,
          ANTHROPIC_BASE_URL: fake.url,
          ANTHROPIC_API_KEY: 'fake-model-key',
          CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
          CLAUDE_CONFIG_DIR: mkdtempSync(path.join(dir, 'config-')),
          ...options.env,
        },
      },
    })) {
      if (message.type === 'system' && message.subtype === 'init') session = message.tools;
    }
    const request = fake.messages().find((r) => offersTools(r));
    assert.ok(request, 'the SDK offered tools');
    const sent = (request.body as { tools: SentTool[] }).tools.filter(
      (t) => t.defer_loading !== true,
    );
    return { sent, session };
  } finally {
    await fake.close();
  }
}

const bundle = new Map(agentBuiltInTools.map((tool) => [tool.name, tool]));

function assertBundleAccepts(sent: readonly SentTool[]) {
  for (const tool of sent) {
    const declared = bundle.get(tool.name);
    assert.ok(
      declared,
      `the SDK offers "${tool.name}", which the bundle lacks: run npm run capture-agent-tools`,
    );
    assert.deepEqual(
      declared.input_schema,
      tool.input_schema,
      `the SDK sends another schema for "${tool.name}" than the bundle holds: run npm run capture-agent-tools`,
    );
  }
}

describe(`the built-in tools bundle matches the installed agent SDK (captured from ${agentSdkVersion})`, () => {
  test('every tool a gated runner offers, with every schema it sends, is in the bundle as sent', async () => {
    const { sent, session } = await offered({});
    assert.ok(sent.some((t) => t.name === 'Bash'));
    assertBundleAccepts(sent);
    // The session's own list names the Agent tool by its older name, Task.
    for (const name of session) {
      if (name.startsWith('mcp__')) continue;
      assert.ok(bundle.has(name === 'Task' ? 'Agent' : name), `the session has "${name}"`);
    }
  });

  test('every built-in the SDK can offer, none deferred, is in the bundle with the schema it sends', async () => {
    const { sent } = await offered({
      tools: [...BUILTIN_TOOL_NAMES],
      env: { ENABLE_TOOL_SEARCH: 'false' },
    });
    assert.ok(sent.length >= 20, `${sent.length} tools sent`);
    assertBundleAccepts(sent);
  });
});
