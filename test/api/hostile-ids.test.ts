/**
 * Ids are data: names a JavaScript runtime treats specially, used as every id and name a caller
 * chooses, answer a 4xx or a decision, never a server error or a hang, and the API keeps serving.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, test } from 'vitest';
import { hungCallMs, within as answeredWithin } from '../support/bounds.js';
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

/**
 * A name that made the process treat it as more than data would crash the call, or hang it: in
 * the gate, until the API's own wait for a decision answers 503 (a server error, caught below);
 * anywhere else, for ever, which only a clock can catch: a catastrophic one, never the speed of
 * this shared machine.
 */
async function within<T extends { status: number; body?: unknown }>(
  what: string,
  answer: Promise<T>,
): Promise<T> {
  const got = await answeredWithin(hungCallMs, what, answer);
  assert.ok(got.status < 500, `${what}: ${got.status} ${JSON.stringify(got.body)}`);
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
      );
      if (created.status === 201) {
        const own = created.body as CreatedRun;
        const stream = readSse(
          `${h.api.url}/v1/sessions/${name}/events/stream`,
          { authorization: `Bearer ${own.session_token}` },
          { count: 3, timeoutMs: hungCallMs },
        );
        const decided = await within(
          `a call in session ${name}`,
          toolCall(h.api, own, name, { tool: 'Read', arguments: { file_path: 'a' } }),
        );
        assert.equal(decided.status, 200);
        await within(
          `a wait in session ${name}`,
          h.api.call('GET', `/v1/sessions/${name}/tool-calls/${name}?wait=1`, {
            token: own.session_token,
          }),
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
      );
      await within(
        `wait on tool-call id ${name}`,
        h.api.call('GET', `/v1/sessions/${run.session_id}/tool-calls/${name}?wait=0`, {
          token: run.session_token,
        }),
      );
      await within(
        `workspace ${name}`,
        h.api.call('POST', '/v1/workspaces', { ...op, body: { name } }),
      );
      await within(
        `member ${name}`,
        h.api.call('POST', `/v1/workspaces/${h.seed.workspace}/members`, {
          ...op,
          body: { name, role: 'member' },
        }),
      );
      const asTool = await within(
        `tool ${name}`,
        toolCall(h.api, run, randomUUID(), { tool: name, arguments: {} }),
      );
      assert.equal(asTool.body.source, 'capability', `tool ${name}`);
      await within(
        `argument key ${name}`,
        h.api.call('PUT', `/v1/sessions/${run.session_id}/tool-calls/${randomUUID()}`, {
          token: run.session_token,
          raw: `{"tool":"Read","arguments":{"file_path":"a","${name}":{"${name}":1}}}`,
        }),
      );
      await within(
        `header ${name}`,
        h.api.call('GET', `/v1/sessions/${run.session_id}/events?after=0`, {
          token: run.session_token,
          headers: { 'last-event-id': name, [`x-${name.toLowerCase()}`]: name },
        }),
      );
      await within(
        `query key ${name}`,
        h.api.call('GET', `/v1/sessions/${run.session_id}/events?${name}=1&after=0`, {
          token: run.session_token,
        }),
      );
      await within(
        `stream resume ${name}`,
        h.api.call('GET', `/v1/sessions/${run.session_id}/events/stream`, {
          token: run.session_token,
          headers: { 'last-event-id': name },
        }),
      );
    }
    await stillServing(run);
  });
});
