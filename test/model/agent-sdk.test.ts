import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, test } from 'vitest';
import { query, type SpawnOptions } from '@anthropic-ai/claude-agent-sdk';
import { contextWindowCeiling } from '../../src/domain/budget/input-token-bound.js';
import { budgetOf, reservationsOf } from '../budget/support.js';
import {
  agentScript,
  startFakeAnthropic,
  text,
  toolUses,
  type FakeAnthropic,
} from '../support/fake-anthropic.js';
import { useHarness } from '../support/harness.js';
import { createModelRun, createProvider } from './support.js';

const h = useHarness();
let fake: FakeAnthropic;
let cwd: string;

beforeAll(async () => {
  fake = await startFakeAnthropic();
  cwd = mkdtempSync(path.join(tmpdir(), 'gate-agent-'));
  writeFileSync(path.join(cwd, 'notes.txt'), 'the answer is 42\n');
});
afterAll(async () => {
  await fake.close();
  rmSync(cwd, { recursive: true, force: true });
});

describe('the Claude Agent SDK through the gate', () => {
  test('the agent works with its session token as API key: the upstream gets the provider key and never the token, the agent process never has the provider key, thinking blocks come back bounded, and the budget moves by exactly the reported usage', async () => {
    const provider = await createProvider(h.api, h.seed, fake.url);
    const run = await createModelRun(h.api, h.seed, provider.id, 5_000_000);
    const usage = { input_tokens: 1_200, output_tokens: 80, cache_read_input_tokens: 300 };
    const firstTurn = toolUses({ name: 'Read', input: { file_path: path.join(cwd, 'notes.txt') } });
    fake.setScript((request, index) => {
      const reply = agentScript([
        {
          ...firstTurn,
          content: [
            { type: 'thinking', thinking: 'I should read the notes.', signature: `sig-${index}` },
            ...firstTurn.content,
          ],
        },
        text('The notes say 42.'),
      ])(request, index);
      return { ...reply, usage };
    });
    const before = fake.messages().length;
    const environments: string[] = [];

    let result: string | undefined;
    for await (const message of query({
      prompt: 'What do the notes say?',
      options: {
        cwd,
        settingSources: [],
        env: {
          ...process.env,
          ANTHROPIC_BASE_URL: `${h.api.url}/anthropic`,
          ANTHROPIC_API_KEY: run.session_token,
          CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
        },
        canUseTool: (_tool, input) => Promise.resolve({ behavior: 'allow', updatedInput: input }),
        // The agent's own process, spawned here so its environment can be read from /proc.
        spawnClaudeCodeProcess: (options: SpawnOptions) => {
          const child = spawn(options.command, options.args, {
            cwd: options.cwd,
            env: options.env,
            signal: options.signal,
            stdio: ['pipe', 'pipe', 'ignore'],
          });
          environments.push(readFileSync(`/proc/${child.pid}/environ`, 'utf8'));
          return child;
        },
      },
    })) {
      if (message.type === 'result' && message.subtype === 'success') result = message.result;
    }
    assert.equal(result, 'The notes say 42.');

    assert.equal(environments.length, 1);
    assert.ok(
      environments[0]!.includes(`ANTHROPIC_API_KEY=${run.session_token}`),
      "the session token is the agent's API key",
    );
    assert.ok(
      !environments[0]!.includes(provider.key),
      "the provider key was in the agent's environment",
    );

    const seen = fake.messages().slice(before);
    assert.ok(seen.length >= 2, `the upstream saw ${seen.length} requests`);
    for (const request of seen) {
      assert.equal(request.headers['x-api-key'], provider.key);
      const everything = JSON.stringify(request.headers) + request.raw.toString('utf8');
      assert.ok(!everything.includes(run.session_token), 'the session token reached the upstream');
    }
    const withThinking = seen.filter((r) => r.raw.toString('utf8').includes('"signature"'));
    assert.ok(withThinking.length >= 1, 'the second turn sent the thinking block back');

    const each = usage.input_tokens + usage.cache_read_input_tokens + usage.output_tokens;
    assert.deepEqual(await budgetOf(h.db, run.run_id), {
      max_tokens: 5_000_000,
      held_tokens: 0,
      used_tokens: seen.length * each,
    });
    const rows = await reservationsOf(h.db, run.session_id);
    assert.equal(rows.length, seen.length);
    assert.ok(
      rows.every((r) => r.status === 'reconciled'),
      `every reservation reconciled: ${JSON.stringify(rows.map((r) => r.status))}`,
    );
    // The thinking block was bounded by the response that produced it, not by the ceiling.
    assert.ok(
      rows.every((r) => r.input_bound_tokens < contextWindowCeiling),
      `bounded below the ceiling: ${JSON.stringify(rows.map((r) => r.input_bound_tokens))}`,
    );
    const { rows: thinking } = await h.db.query(
      `select t.output_tokens from model_thinking_blocks t
       join model_reservations r on r.id = t.reservation_id where r.session_id = $1`,
      [run.session_id],
    );
    assert.ok(thinking.length >= 1, 'a thinking block was recorded');
    assert.ok(
      thinking.every((t) => t.output_tokens === usage.output_tokens),
      `each thinking block's output tokens: ${JSON.stringify(thinking)}`,
    );
  });
});
