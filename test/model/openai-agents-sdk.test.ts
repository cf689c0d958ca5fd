import assert from 'node:assert/strict';
import { Agent, OpenAIProvider, Runner, setTracingDisabled, tool } from '@openai/agents';
import { afterAll, beforeAll, describe, test } from 'vitest';
import { z } from 'zod';
import { budgetOf, reservationsOf } from '../budget/support.js';
import {
  callTool,
  say,
  startFakeOpenAI,
  type FakeOpenAI,
  type RecordedRequest,
} from '../support/fake-openai.js';
import { useHarness } from '../support/harness.js';
import { createModelRun } from './support.js';
import { createOpenAIProvider, openaiClient } from './openai-support.js';

const h = useHarness();
let fake: FakeOpenAI;

beforeAll(async () => {
  // Traces would go to OpenAI's own endpoint: nothing here leaves the machine.
  setTracingDisabled(true);
  fake = await startFakeOpenAI();
});
afterAll(async () => {
  await fake.close();
});

/** Whether the agent already sent the tool's output back (either API's shape). */
function hasToolOutput(request: RecordedRequest): boolean {
  const items = (request.body?.input ?? request.body?.messages ?? []) as {
    type?: string;
    role?: string;
  }[];
  return (
    Array.isArray(items) &&
    items.some((i) => i.type === 'function_call_output' || i.role === 'tool')
  );
}

const usage = { input_tokens: 900, output_tokens: 60, cached_tokens: 100 };

describe('the OpenAI Agents SDK through the gate', () => {
  for (const useResponses of [true, false]) {
    const api = useResponses ? 'Responses' : 'Chat Completions';
    test(`an agent with a tool works over ${api}, streamed and not, with its session token as the API key: the upstream gets the provider key, the budget moves by exactly the reported usage`, async () => {
      const provider = await createOpenAIProvider(h.api, h.seed, fake.url);
      const run = await createModelRun(h.api, h.seed, provider.id, 1_000_000);
      fake.setScript((request) =>
        hasToolOutput(request)
          ? { ...say('The notes say 42.'), usage }
          : { ...callTool('read_notes', { topic: 'answer' }), usage },
      );
      const readNotes = tool({
        name: 'read_notes',
        description: 'Reads the notes on a topic.',
        parameters: z.object({ topic: z.string() }),
        execute: ({ topic }) => `the ${topic} is 42`,
      });
      const agent = new Agent({
        name: 'reader',
        instructions: 'Answer from the notes.',
        model: 'gpt-4.1-mini',
        tools: [readNotes],
      });
      const runner = new Runner({
        modelProvider: new OpenAIProvider({
          openAIClient: openaiClient(h.api, run.session_token),
          useResponses,
        }),
        tracingDisabled: true,
      });
      const before = fake.calls().length;

      const answered = await runner.run(agent, 'What do the notes say?');
      assert.equal(answered.finalOutput, 'The notes say 42.');
      const streamed = await runner.run(agent, 'And again, streamed?', { stream: true });
      await streamed.completed;
      assert.equal(streamed.finalOutput, 'The notes say 42.');

      const seen = fake.calls().slice(before);
      assert.equal(seen.length, 4);
      const path = useResponses ? '/v1/responses' : '/v1/chat/completions';
      for (const request of seen) {
        assert.equal(request.path, path);
        assert.equal(request.headers.authorization, `Bearer ${provider.key}`);
        assert.ok(!JSON.stringify(request.headers).includes(run.session_token));
      }
      const rows = await reservationsOf(h.db, run.session_id);
      assert.equal(rows.length, 4);
      assert.ok(rows.every((r) => r.status === 'reconciled'));
      assert.deepEqual(await budgetOf(h.db, run.run_id), {
        max_tokens: 1_000_000,
        held_tokens: 0,
        used_tokens: 4 * (usage.input_tokens + usage.output_tokens),
      });
    });
  }
});
