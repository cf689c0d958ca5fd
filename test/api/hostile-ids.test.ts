/**
 * Ids are data: names a JavaScript runtime treats specially, used as every id and name a caller
 * chooses, answer a 4xx or a decision, quickly, and the API keeps serving.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, test } from 'vitest';
import { useHarness } from '../support/harness.js';
import { readSse } from '../support/sse.js';
import { createRun, expectStatus, toolCall, type CreatedRun } from '../support/seed.js';

const h = useHarness();

/** Keys an EventEmitter, a plain object, a promise or JSON treat as more than a name. */
const special = [
  'error',
  'newListener',
  'removeListener',
  '__proto__',
  'constructor',
  'prototype',
  'hasOwnProperty',
  'toString',
  'valueOf',
  'toJSON',
  'then',
  'isPrototypeOf',
  '__defineGetter__',
] as const;

// A name that made the process treat it as more than data would hang or crash the call: the
// bounds catch that, not slowness (many test files share this machine's two cores).
const refusalMs = 3_000;
const decisionMs = 10_000;

async function within<T extends { status: number; body?: unknown }>(
  what: string,
  answer: Promise<T>,
  ms: number,
): Promise<T> {
  const started = Date.now();
  const got = await answer;
  const took = Date.now() - started;
  assert.ok(got.status < 500, `${what}: ${got.status} ${JSON.stringify(got.body)}`);
  const bound = got.status === 200 ? decisionMs : ms;
  assert.ok(took <= bound, `${what}: ${got.status} after ${took} ms (bound ${bound} ms)`);
  return got;
}

/** The API is still up: a health check and an ordinary decision. */
async function stillServing(run: CreatedRun) {
  await expectStatus(h.api.call('GET', '/healthz'), 200);
  const answer = await expectStatus(
    toolCall(h.api, run, randomUUID(), { tool: 'Read', arguments: { file_path: 'a' } }),
    200,
  );
  assert.equal(answer.decision, 'allow');
}

describe('names the runtime treats specially are data', () => {
  test('as session ids, tool-call ids, workspace, member and tool names, argument keys, headers and query keys', async () => {
    const run = await createRun(h.api, h.seed);
    await stillServing(run);
    const op = { token: h.api.operatorKey };
    for (const name of special) {
      // A session: created (the id is well formed) or refused, never a crash; if created, used.
      const created = await within(
        `session ${name}`,
        h.api.call('POST', '/v1/runs', {
          ...op,
          body: {
            workspace: h.seed.workspace,
            session_id: name,
            invoked_by: h.seed.admin.user_id,
            source: { kind: 'manual' },
            autonomy: 'supervised',
            policy_id: h.seed.policyId,
            tools: { bundles: [h.seed.bundleId] },
            budget: { max_tokens: 1000 },
          },
        }),
        refusalMs,
      );
      if (created.status === 201) {
        const own = created.body as CreatedRun;
        const stream = readSse(
          `${h.api.url}/v1/sessions/${name}/events/stream`,
          { authorization: `Bearer ${own.session_token}` },
          { count: 3, timeoutMs: decisionMs },
        );
        const decided = await within(
          `a call in session ${name}`,
          toolCall(h.api, own, name, { tool: 'Read', arguments: { file_path: 'a' } }),
          refusalMs,
        );
        assert.equal(decided.status, 200);
        await within(
          `a wait in session ${name}`,
          h.api.call('GET', `/v1/sessions/${name}/tool-calls/${name}?wait=1`, {
            token: own.session_token,
          }),
          refusalMs,
        );
        const events = await stream;
        assert.deepEqual(
          events.map((e) => e.event),
          ['run.created', 'tool.requested', 'tool.decision'],
          `the stream of session ${name}`,
        );
      }
      await within(
        `tool-call id ${name}`,
        toolCall(h.api, run, name, { tool: 'Read', arguments: { file_path: 'a' } }),
        refusalMs,
      );
      await within(
        `wait on tool-call id ${name}`,
        h.api.call('GET', `/v1/sessions/${run.session_id}/tool-calls/${name}?wait=0`, {
          token: run.session_token,
        }),
        refusalMs,
      );
      await within(
        `workspace ${name}`,
        h.api.call('POST', '/v1/workspaces', { ...op, body: { name } }),
        refusalMs,
      );
      await within(
        `member ${name}`,
        h.api.call('POST', `/v1/workspaces/${h.seed.workspace}/members`, {
          ...op,
          body: { name, role: 'member' },
        }),
        refusalMs,
      );
      const asTool = await within(
        `tool ${name}`,
        toolCall(h.api, run, randomUUID(), { tool: name, arguments: {} }),
        refusalMs,
      );
      assert.equal(asTool.body.source, 'capability', `tool ${name}`);
      await within(
        `argument key ${name}`,
        h.api.call('PUT', `/v1/sessions/${run.session_id}/tool-calls/${randomUUID()}`, {
          token: run.session_token,
          raw: `{"tool":"Read","arguments":{"file_path":"a","${name}":{"${name}":1}}}`,
        }),
        refusalMs,
      );
      await within(
        `header ${name}`,
        h.api.call('GET', `/v1/sessions/${run.session_id}/events?after=0`, {
          token: run.session_token,
          headers: { 'last-event-id': name, [`x-${name.toLowerCase()}`]: name },
        }),
        refusalMs,
      );
      await within(
        `query key ${name}`,
        h.api.call('GET', `/v1/sessions/${run.session_id}/events?${name}=1&after=0`, {
          token: run.session_token,
        }),
        refusalMs,
      );
      await within(
        `stream resume ${name}`,
        h.api.call('GET', `/v1/sessions/${run.session_id}/events/stream`, {
          token: run.session_token,
          headers: { 'last-event-id': name },
        }),
        refusalMs,
      );
    }
    await stillServing(run);
  });
});
