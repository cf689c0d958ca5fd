/**
 * Text PostgreSQL cannot store, in every field a runner, approver or operator sends: a 400
 * naming the field, at once, nothing half-written, and the API keeps serving.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, test } from 'vitest';
import { hungCallMs, within } from '../support/bounds.js';
import { useHarness } from '../support/harness.js';
import {
  createRun,
  expectStatus,
  toolCall,
  type CreatedRun,
  toolCallUntilAnswered,
} from '../support/seed.js';

const h = useHarness();

const kinds: [string, string][] = [
  ['a NUL', 'a\u0000b'],
  ['a lone high surrogate', 'a\ud800b'],
  ['a lone low surrogate', 'a\udc00b'],
  ['a pair in the wrong order', '\udc00\ud800'],
  ['a high surrogate at the end', 'ok\udbff'],
];

/** How a path names a key holding such text: each character as its escape. */
const escapedKey = (text: string) =>
  text.replace(/[\0\ud800-\udfff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);

interface Field {
  name: string;
  send: (bad: string, run: CreatedRun, id: string) => Promise<{ status: number; body: any }>;
  /** The path the 400 names; `%` stands for the bad text as escaped in a key. */
  path: string;
  /** For a tool call, nothing of it may be stored. */
  toolCall?: boolean;
}

const op = () => ({ token: h.api.operatorKey });

const fields: Field[] = [
  {
    name: 'tool name',
    send: (bad, run, id) => toolCall(h.api, run, id, { tool: bad, arguments: {} }),
    path: 'body.tool',
    toolCall: true,
  },
  {
    name: 'argument value, nested',
    send: (bad, run, id) =>
      toolCall(h.api, run, id, {
        tool: 'Read',
        arguments: { file_path: 'a', deep: [{ list: [1, bad] }] },
      }),
    path: 'body.arguments.deep[0].list[1]',
    toolCall: true,
  },
  {
    name: 'argument key, nested',
    send: (bad, run, id) =>
      toolCall(h.api, run, id, {
        tool: 'Read',
        arguments: { file_path: 'a', deep: { [bad]: true } },
      }),
    path: 'body.arguments.deep.%',
    toolCall: true,
  },
  {
    name: 'approver reason',
    send: (bad, run, id) =>
      h.api.call('POST', `/v1/approvals/${run.session_id}/${id}/decision`, {
        token: h.seed.admin.token,
        body: { decision: 'deny', reason: bad },
      }),
    path: 'body.reason',
  },
  {
    name: 'workspace name',
    send: (bad) => h.api.call('POST', '/v1/workspaces', { ...op(), body: { name: bad } }),
    path: 'body.name',
  },
  {
    name: 'member name',
    send: (bad) =>
      h.api.call('POST', `/v1/workspaces/${h.seed.workspace}/members`, {
        ...op(),
        body: { name: bad, role: 'member' },
      }),
    path: 'body.name',
  },
  {
    name: 'policy rule value',
    send: (bad) =>
      h.api.call('POST', '/v1/policies', {
        ...op(),
        body: {
          workspace: h.seed.workspace,
          name: 'p',
          rules: [
            { id: 'r', match: { args: [{ path: '/x', op: 'eq', value: bad }] }, verdict: 'deny' },
          ],
          default: 'deny',
          autonomous_fallback: 'deny',
          approval: { timeout_s: 60, on_timeout: 'deny' },
        },
      }),
    path: 'body.rules[0].match.args[0].value',
  },
  {
    name: 'bundle tool description',
    send: (bad) =>
      h.api.call('POST', '/v1/capability-bundles', {
        ...op(),
        body: {
          workspace: h.seed.workspace,
          name: 'b',
          version: '1',
          tools: [{ name: 'T', description: bad }],
        },
      }),
    path: 'body.tools[0].description',
  },
  {
    name: 'model request input',
    send: (bad, run, id) =>
      h.api.call('POST', `/v1/sessions/${run.session_id}/model-requests`, {
        token: run.session_token,
        body: {
          request_id: id,
          model: 'claude-x',
          max_output_tokens: 10,
          input: { messages: [{ role: 'user', content: bad }] },
        },
      }),
    path: 'body.input.messages[0].content',
  },
];

describe('text PostgreSQL cannot store is refused at the API', () => {
  test('each kind, in each field: a 400 naming the field, at once, nothing stored', async () => {
    const run = await createRun(h.api, h.seed);
    for (const [kind, bad] of kinds) {
      for (const field of fields) {
        const id = randomUUID();
        const what = `${kind} in the ${field.name}`;
        // A clock for a hang only: whether it was refused at once, the answer says below.
        const answer = await within(hungCallMs, what, field.send(bad, run, id));
        assert.equal(answer.status, 400, `${what}: ${JSON.stringify(answer.body)}`);
        const paths = (answer.body.errors as { path: string }[]).map((e) => e.path);
        const expected = field.path.replace('%', escapedKey(bad));
        assert.ok(paths.includes(expected), `${what}: ${paths.join(', ')}`);
        if (field.toolCall) {
          const stored = await h.db.query(
            'select 1 from tool_calls where session_id = $1 and tool_call_id = $2',
            [run.session_id, id],
          );
          assert.equal(stored.rowCount, 0, `${what}: a row was written`);
        }
      }
    }
    await expectStatus(h.api.call('GET', '/healthz'), 200);
    const fine = await expectStatus(
      toolCallUntilAnswered(h.api, run, randomUUID(), {
        tool: 'Read',
        arguments: { file_path: 'a' },
      }),
      200,
    );
    assert.equal(fine.decision, 'allow');
  });

  test('the model endpoint refuses it in Anthropic’s error shape, naming the path', async () => {
    const provider = await expectStatus(
      h.api.call('POST', '/v1/model-providers', {
        ...op(),
        body: {
          workspace: h.seed.workspace,
          name: `p-${randomUUID()}`,
          kind: 'anthropic',
          base_url: 'http://127.0.0.1:9/',
          credential: { type: 'api_key', key: 'sk-test-unreachable' },
        },
      }),
      201,
    );
    const run = await createRun(h.api, h.seed, { model_provider: provider.id });
    for (const [kind, bad] of kinds) {
      const answer = await h.api.call('POST', '/anthropic/v1/messages', {
        headers: { 'x-api-key': run.session_token, 'anthropic-version': '2023-06-01' },
        body: {
          model: 'claude-x',
          max_tokens: 10,
          messages: [{ role: 'user', content: [{ type: 'text', text: bad }] }],
        },
      });
      assert.equal(answer.status, 400, `${kind}: ${JSON.stringify(answer.body)}`);
      assert.equal(answer.body.error.type, 'invalid_request_error');
      assert.match(answer.body.error.message, /messages\[0\]\.content\[0\]\.text/);
    }
  });
});
