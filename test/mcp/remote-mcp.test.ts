/**
 * The remote MCP endpoint `/mcp`, driven by the MCP TypeScript SDK's client over Streamable
 * HTTP with a run's session token as the bearer, against the real API, Temporal, PostgreSQL and
 * a real upstream MCP server reached through a brokered connection.
 */
import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, test } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  CallToolResultSchema,
  CreateTaskResultSchema,
  ToolListChangedNotificationSchema,
  type CallToolResult,
} from '@modelcontextprotocol/sdk/types.js';
import { openMcpSessionsPerRun } from '../../src/store/mcp-sessions.js';
import { startTestApi } from '../support/api.js';
import { useHarness } from '../support/harness.js';
import { startRugpullUpstream, type RugpullUpstream } from '../support/rugpull-upstream.js';
import { createRun, defaultPolicy, expectStatus, type CreatedRun } from '../support/seed.js';
import { decideInWebForm } from '../support/web-form.js';
import { initializeRequest } from '../support/raw-mcp.js';

const h = useHarness({
  policy: {
    ...defaultPolicy,
    name: 'remote-mcp',
    rules: [
      { id: 'searches', match: { tool: 'mcp__notes__search_notes' }, verdict: 'allow' },
      {
        id: 'drafts-denied',
        match: {
          tool: 'mcp__notes__create_note',
          args: [{ path: '/title', op: 'glob', value: 'draft*' }],
        },
        verdict: 'deny',
      },
      { id: 'notes-ask', match: { tool: 'mcp__notes__create_note' }, verdict: 'require_approval' },
    ],
    default: 'deny',
  },
  api: { approvalRecheckS: 1, mcpApprovalWaitS: 2 },
});

const token = `secret-${randomBytes(12).toString('hex')}`;
let upstream: RugpullUpstream;
let connection: string;
const clients: Client[] = [];

const op = () => ({ token: h.api.operatorKey });
const text = (result: CallToolResult) =>
  result.content.map((c) => (c.type === 'text' ? c.text : '')).join('');

async function notesRun(): Promise<CreatedRun> {
  return createRun(h.api, h.seed, {
    tools: { bundles: [h.seed.bundleId], connections: [{ id: connection }] },
  });
}

/**
 * A client's HTTP as a careful client's is: a 503 or 429 (the gate busy, nothing done) is sent
 * again after a pause, for up to a minute, as runners do with the REST routes.
 */
const patientFetch: typeof fetch = async (input, init) => {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const answer = await fetch(input, init);
    if ((answer.status !== 503 && answer.status !== 429) || Date.now() > deadline) return answer;
    await answer.body?.cancel();
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
};

async function connect(
  run: { session_token: string },
  name = 'remote-test',
  apiUrl = h.api.url,
): Promise<Client> {
  const client = new Client({ name, version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL('/mcp', apiUrl), {
    requestInit: { headers: { authorization: `Bearer ${run.session_token}` } },
    fetch: patientFetch,
  });
  await client.connect(transport);
  clients.push(client);
  return client;
}

const call = (client: Client, name: string, args: Record<string, unknown>) =>
  client.callTool({ name, arguments: args }) as Promise<CallToolResult>;

/** As a model told "make the same call again" does: the same call, until it is answered. */
async function callUntilAnswered(client: Client, name: string, args: Record<string, unknown>) {
  for (let tries = 0; tries < 60; tries += 1) {
    const result = await call(client, name, args);
    if (!/make the same call again/i.test(text(result))) return result;
  }
  throw new Error(`${name} was never answered`);
}

async function ledger(sessionId: string) {
  const page = await expectStatus(
    h.api.call('GET', `/v1/sessions/${sessionId}/events?limit=1000`, op()),
    200,
  );
  return page.events as { type: string; data: Record<string, unknown> }[];
}

describe('the remote MCP endpoint, with a session token', () => {
  beforeAll(async () => {
    upstream = await startRugpullUpstream({ token });
    connection = (
      await expectStatus(
        h.api.call('POST', '/v1/connections', {
          ...op(),
          body: {
            workspace: h.seed.workspace,
            name: 'notes',
            kind: 'org',
            url: upstream.url,
            credential: { type: 'bearer', token },
          },
        }),
        201,
      )
    ).id as string;
  });
  afterAll(async () => {
    for (const client of clients) await client.close().catch(() => undefined);
    await upstream.close();
  });

  test('tools/list is exactly the run’s frozen brokered tools, under their frozen names, in a stable order', async () => {
    const run = await notesRun();
    const client = await connect(run);
    const { tools } = await client.listTools();
    const brokered = run.tools
      .filter((t) => t.class === 'brokered')
      .map((t) => t.name)
      .sort();
    assert.deepEqual(
      tools.map((t) => t.name),
      brokered,
    );
    assert.deepEqual(brokered, ['mcp__notes__create_note', 'mcp__notes__search_notes']);
    assert.equal(tools[1]?.annotations?.readOnlyHint, true);
    // A tool added upstream after the freeze never appears.
    upstream.addTool({
      name: 'late_tool',
      description: 'added after the freeze',
      inputSchema: { type: 'object' },
    });
    try {
      const again = await client.listTools();
      assert.deepEqual(
        again.tools.map((t) => t.name),
        brokered,
      );
    } finally {
      upstream.withdrawTool('late_tool');
    }
  });

  test('an allowed call reaches the upstream with the connection’s credential, never the client’s token', async () => {
    const run = await notesRun();
    const client = await connect(run);
    const result = await call(client, 'mcp__notes__search_notes', { query: 'q' });
    assert.equal(result.isError ?? false, false, text(result));
    assert.deepEqual(JSON.parse(text(result)), {
      tool: 'search_notes',
      arguments: { query: 'q' },
    });
    const last = upstream.calls.at(-1);
    assert.equal(last?.authorization, `Bearer ${token}`);
    assert.equal(JSON.stringify(upstream.calls).includes(run.session_token), false);
  });

  test('a deny is a tool result with isError and the reason; the upstream is never called', async () => {
    const run = await notesRun();
    const client = await connect(run);
    const before = upstream.calls.length;
    const result = await call(client, 'mcp__notes__create_note', { title: 'draft 1', body: 'b' });
    assert.equal(result.isError, true);
    assert.match(text(result), /drafts-denied/);
    const unknown = await call(client, 'mcp__notes__nothing_like_it', {});
    assert.equal(unknown.isError, true);
    // A sandbox tool of the run is not this endpoint's to run: refused, never asked as allowed.
    const sandboxed = await call(client, 'Read', { file_path: '/etc/passwd' });
    assert.equal(sandboxed.isError, true);
    assert.match(text(sandboxed), /sandbox/);
    assert.equal(upstream.calls.length, before, 'no upstream call');
    const decisions = (await ledger(run.session_id)).filter((e) => e.type === 'tool.decision');
    assert.equal(decisions.length, 2);
  });

  test('no bearer, or a token that is none of a run’s: 401 naming the resource metadata', async () => {
    for (const [authorization, error] of [
      [undefined, ''],
      ['Bearer fgs_not-a-real-token', ', error="invalid_token"'],
      ['Basic abc', ''],
    ] as const) {
      const answer = await fetch(new URL('/mcp', h.api.url), {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          ...(authorization && { authorization }),
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      });
      assert.equal(answer.status, 401);
      assert.equal(
        answer.headers.get('www-authenticate'),
        `Bearer resource_metadata="${new URL('/.well-known/oauth-protected-resource/mcp', h.api.config.api.publicUrl).toString()}"${error}`,
      );
    }
  });

  test('a call that needs a person, from a client without tasks: a bounded wait, then "call again", and the retry runs once', async () => {
    const run = await notesRun();
    const client = await connect(run);
    const before = upstream.calls.length;
    const args = { title: `approve ${randomUUID()}`, body: 'b' };
    const progress: string[] = [];
    const first = (await client.callTool(
      { name: 'mcp__notes__create_note', arguments: args },
      undefined,
      {
        onprogress: (p) => progress.push(p.message ?? ''),
      },
    )) as CallToolResult;
    assert.equal(progress.length, 1, 'told once that it waits');
    assert.match(progress[0] ?? '', /waiting for an approval at http/);
    assert.equal(first.isError, true);
    assert.match(text(first), /waiting for an approval at http.*Make the same call again/s);
    // Made again before anyone decided: the same approval, not a second one.
    const again = await call(client, 'mcp__notes__create_note', args);
    assert.match(text(again), /waiting for an approval/);
    const pending = await pendingOf(run);
    await decideInWebForm(h.api.url, h.seed.admin.token, pending, 'approve');
    const retried = await callUntilAnswered(client, 'mcp__notes__create_note', args);
    assert.equal(retried.isError ?? false, false, text(retried));
    assert.equal(upstream.calls.length, before + 1, 'executed once');
    // Delivered: the same call again is a new call, asking again.
    const third = await call(client, 'mcp__notes__create_note', args);
    assert.equal(third.isError, true);
    assert.match(text(third), /waiting for an approval/);
    assert.equal(upstream.calls.length, before + 1);
  });

  test('a task whose creation was answered "unavailable" is the same task when sent again: the call runs once', async () => {
    // An API that waits a second for the gate: the held upstream outlasts it, so creating the
    // task is answered 503 and the client sends the same request again, until it is created.
    const quick = await startTestApi({}, { gateWaitMs: 1_000 });
    try {
      const run = await notesRun();
      const client = await connect(run, 'retrying-task', quick.url);
      const query = `once ${randomUUID()}`;
      const release = upstream.holdCalls();
      const created = startTask(client, { query }, 'mcp__notes__search_notes');
      created.catch(() => undefined);
      const received = () => upstream.calls.filter((c) => c.arguments.query === query).length;
      try {
        // Beside another full suite the gate's stages and the broker's task can take longer
        // than a quiet machine's few seconds to reach the upstream: a catastrophic bound only.
        await until(() => Promise.resolve(received() > 0 ? true : undefined), 90_000);
        // Answered "unavailable" and sent again, a few times, while the upstream holds the call.
        await new Promise((resolve) => setTimeout(resolve, 3_500));
      } finally {
        release();
      }
      const { task } = await created;
      const done = await taskResult(client, task.taskId);
      assert.equal(done.isError ?? false, false, text(done));
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      assert.equal(received(), 1, 'carried out once');
      const { rows } = await h.db.query<{ n: number }>(
        `select count(*)::int as n from tool_calls where session_id = $1`,
        [run.session_id],
      );
      assert.equal(rows[0]?.n, 1, 'one call recorded');
    } finally {
      // The client's stream holds a connection the API's close would wait for.
      for (const client of clients.splice(0)) await client.close().catch(() => undefined);
      await quick.close();
    }
  });

  test('approval as a task, approved in the web form: working until then, completed with the upstream’s result', async () => {
    const run = await notesRun();
    const client = await connect(run);
    const before = upstream.calls.length;
    const { task } = await startTask(client, { title: 'approve me', body: 'b' });
    assert.equal(task.status, 'working');
    assert.match(task.statusMessage ?? '', /waiting for an approval at http/);
    assert.equal((await client.experimental.tasks.getTask(task.taskId)).status, 'working');
    const result = taskResult(client, task.taskId);
    await decideInWebForm(
      h.api.url,
      h.seed.admin.token,
      { session_id: run.session_id, tool_call_id: task.taskId },
      'approve',
    );
    const done = await result;
    assert.equal(done.isError ?? false, false, text(done));
    assert.deepEqual(JSON.parse(text(done)), {
      tool: 'create_note',
      arguments: { title: 'approve me', body: 'b' },
    });
    assert.equal((await client.experimental.tasks.getTask(task.taskId)).status, 'completed');
    assert.equal(upstream.calls.length, before + 1);
  });

  test('approval as a task, denied through the approvals API: failed with the deny’s message, never executed', async () => {
    const run = await notesRun();
    const client = await connect(run);
    const before = upstream.calls.length;
    const { task } = await startTask(client, { title: 'deny me', body: 'b' });
    await expectStatus(
      h.api.call('POST', `/v1/approvals/${run.session_id}/${task.taskId}/decision`, {
        token: h.seed.admin.token,
        body: { decision: 'deny', reason: 'not today' },
      }),
      200,
    );
    const failed = await until(async () => {
      const now = await client.experimental.tasks.getTask(task.taskId);
      return now.status === 'working' ? undefined : now;
    });
    assert.equal(failed.status, 'failed');
    assert.match(failed.statusMessage ?? '', /denied/);
    const result = await taskResult(client, task.taskId);
    assert.equal(result.isError, true);
    assert.equal(upstream.calls.length, before, 'never executed');
  });

  test('a task cancelled before the decision withdraws the approval: the call never runs, a later approval is refused', async () => {
    const run = await notesRun();
    const client = await connect(run);
    const before = upstream.calls.length;
    const { task } = await startTask(client, { title: 'cancel me', body: 'b' });
    const cancelled = await client.experimental.tasks.cancelTask(task.taskId);
    assert.equal(cancelled.status, 'cancelled');
    assert.equal((await client.experimental.tasks.getTask(task.taskId)).status, 'cancelled');
    const late = await h.api.call(
      'POST',
      `/v1/approvals/${run.session_id}/${task.taskId}/decision`,
      { token: h.seed.admin.token, body: { decision: 'approve' } },
    );
    assert.equal(late.status, 409, JSON.stringify(late.body));
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    assert.equal(upstream.calls.length, before, 'never executed');
    await assert.rejects(client.experimental.tasks.cancelTask(task.taskId), /already decided/);
  });

  test('a task id reaches only its own run: another run’s token, and a call made any other way, answer "not found"', async () => {
    const runA = await notesRun();
    const runB = await notesRun();
    const clientA = await connect(runA);
    const clientB = await connect(runB);
    const { task } = await startTask(clientA, { title: 'only mine', body: 'b' });
    await assert.rejects(clientB.experimental.tasks.getTask(task.taskId), /not found/);
    await assert.rejects(clientB.experimental.tasks.cancelTask(task.taskId), /not found/);
    await assert.rejects(taskResult(clientB, task.taskId), /not found/);
    assert.equal((await clientA.experimental.tasks.getTask(task.taskId)).status, 'working');
    // A plain REST call of run A is no task, even to run A.
    const rest = `rest-${randomUUID()}`;
    await h.api.call('PUT', `/v1/sessions/${runA.session_id}/tool-calls/${rest}`, {
      token: runA.session_token,
      body: { tool: 'mcp__notes__search_notes', arguments: { query: 'q' }, execute: true },
    });
    await assert.rejects(clientA.experimental.tasks.getTask(rest), /not found/);
  });

  test('Mcp-Session-Id: any process takes its own run’s session; another run’s, or an ended one, is 404', async () => {
    const runA = await notesRun();
    const runB = await notesRun();
    const sessionId = await initializeSession(runA.session_token);
    const list = { jsonrpc: '2.0', id: 2, method: 'tools/list' };
    assert.equal((await rawMcp(runA.session_token, list, sessionId)).status, 200);
    assert.equal((await rawMcp(runA.session_token, list)).status, 200, 'without a session too');
    assert.equal((await rawMcp(runB.session_token, list, sessionId)).status, 404);
    assert.equal((await rawMcp(runA.session_token, list, 'not-a-session')).status, 404);
    const ended = await fetch(new URL('/mcp', h.api.url), {
      method: 'DELETE',
      headers: {
        authorization: `Bearer ${runA.session_token}`,
        'mcp-session-id': sessionId,
        'mcp-protocol-version': '2025-11-25',
      },
    });
    assert.equal(ended.status, 200);
    assert.equal((await rawMcp(runA.session_token, list, sessionId)).status, 404);
    const { rows } = await h.db.query('select 1 from mcp_sessions where id = $1', [sessionId]);
    assert.equal(rows.length, 0, 'an ended session leaves no row');
  });

  test('a run keeps at most so many sessions: one more ends the oldest, whose client is answered 404', async () => {
    const run = await notesRun();
    const other = await notesRun();
    const othersSession = await initializeSession(other.session_token);
    const oldest = await initializeSession(run.session_token);
    // The rest of what the run may keep, opened straight in the table (a thousand initializes
    // would only take longer), the first made an hour old: the oldest by far.
    await h.db.query(
      `insert into mcp_sessions (id, run_id, protocol_version, created_at)
       select gen_random_uuid(), $1, '2025-11-25', now() - n * interval '1 ms'
       from generate_series(1, $2::int) n`,
      [run.run_id, openMcpSessionsPerRun - 1],
    );
    await h.db.query(
      `update mcp_sessions set created_at = now() - interval '1 hour' where id = $1`,
      [oldest],
    );
    const list = { jsonrpc: '2.0', id: 2, method: 'tools/list' };
    assert.equal(
      (await rawMcp(run.session_token, list, oldest)).status,
      200,
      'still open at the bound',
    );
    const newest = await initializeSession(run.session_token);
    assert.equal((await rawMcp(run.session_token, list, oldest)).status, 404, 'the oldest ended');
    assert.equal((await rawMcp(run.session_token, list, newest)).status, 200);
    const { rows } = await h.db.query<{ n: number }>(
      'select count(*)::int as n from mcp_sessions where run_id = $1',
      [run.run_id],
    );
    assert.equal(rows[0]?.n, openMcpSessionsPerRun);
    assert.equal(
      (await rawMcp(other.session_token, list, othersSession)).status,
      200,
      "another run's session is none of its count",
    );
  });

  test('older revisions the SDK negotiates are spoken too: 2025-03-26 and 2025-06-18', async () => {
    const run = await notesRun();
    for (const version of ['2025-03-26', '2025-06-18']) {
      const init = await rawMcp(
        run.session_token,
        {
          jsonrpc: '2.0',
          id: 1,
          method: 'initialize',
          params: {
            protocolVersion: version,
            capabilities: {},
            clientInfo: { name: 'old', version: '1' },
          },
        },
        undefined,
        version,
      );
      assert.match(await init.text(), new RegExp(`"protocolVersion":"${version}"`));
      const list = await rawMcp(
        run.session_token,
        { jsonrpc: '2.0', id: 2, method: 'tools/list' },
        init.headers.get('mcp-session-id') ?? undefined,
        version,
      );
      assert.equal(list.status, 200);
      assert.match(await list.text(), /mcp__notes__search_notes/);
    }
  });

  test('bad input is a JSON-RPC error naming the field, never a 500', async () => {
    const run = await notesRun();
    const bad = await rawMcp(run.session_token, {
      jsonrpc: '2.0',
      id: 3,
      method: 'tools/call',
      params: { name: 42 },
    });
    assert.equal(bad.status, 200);
    const body = await bad.text();
    assert.match(body, /"code":-32602/);
    assert.match(body, /name/);
    const notJson = await fetch(new URL('/mcp', h.api.url), {
      method: 'POST',
      headers: {
        authorization: `Bearer ${run.session_token}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: '{not json',
    });
    assert.equal(notJson.status, 400);

    // What PostgreSQL cannot store, a name past the REST route's bound, a task id the gate never
    // gives: each named, none reaching the state of record.
    const before = upstream.calls.length;
    const cases: [unknown, RegExp][] = [
      [
        { name: 'mcp__notes__search_notes', arguments: { query: 'a\u0000b' } },
        /params\.arguments\.query/,
      ],
      [{ name: 'x'.repeat(257), arguments: {} }, /params\.name must be 1 to 256/],
      [{ name: 'mcp__notes__\u0000', arguments: {} }, /params\.name/],
    ];
    for (const [params, named] of cases) {
      const refused = await rawMcp(run.session_token, {
        jsonrpc: '2.0',
        id: 4,
        method: 'tools/call',
        params,
      });
      const text = await refused.text();
      assert.match(text, /"code":-32602/, text);
      assert.match(text, named, text);
    }
    for (const method of ['tasks/get', 'tasks/result', 'tasks/cancel']) {
      const refused = await rawMcp(run.session_token, {
        jsonrpc: '2.0',
        id: 5,
        method,
        params: { taskId: 'mcp-task-\u0000' },
      });
      assert.match(await refused.text(), /"code":-32602.*task not found/);
    }
    assert.equal(upstream.calls.length, before);
    const { rows } = await h.db.query('select 1 from tool_calls where session_id = $1', [
      run.session_id,
    ]);
    assert.equal(rows.length, 0, 'nothing recorded');

    // One message a request: a batch would hold a hundred calls on one of the run's slots.
    const batch = await rawMcp(run.session_token, [
      { jsonrpc: '2.0', id: 6, method: 'tools/list' },
      { jsonrpc: '2.0', id: 7, method: 'tools/list' },
    ]);
    assert.equal(batch.status, 400);
    assert.match(await batch.text(), /batches are not accepted/);
    const ended = await fetch(new URL('/mcp', h.api.url), {
      method: 'DELETE',
      headers: { authorization: `Bearer ${run.session_token}`, 'mcp-session-id': 'not-a-uuid' },
    });
    assert.equal(ended.status, 404);
  });

  test('50 clients at once on one run: each is answered its own call, each call decided and carried out once', async () => {
    const run = await notesRun();
    const before = upstream.calls.length;
    const answers = await Promise.all(
      Array.from({ length: 50 }, async (_, n) => {
        const client = await connect(run, `client-${n}`);
        const { tools } = await client.listTools();
        assert.equal(tools.length, 2);
        const allowed = n % 5 !== 0;
        const result = allowed
          ? await callUntilAnswered(client, 'mcp__notes__search_notes', { query: `q${n}` })
          : await callUntilAnswered(client, 'mcp__notes__create_note', {
              title: `draft ${n}`,
              body: 'b',
            });
        await client.close();
        return { n, allowed, result };
      }),
    );
    // Only this test's calls: an earlier test's call, held and released, may still arrive.
    const ours = /^(q|draft )\d+$/;
    const reached = upstream.calls
      .slice(before)
      .filter((c) => ours.test(String(c.arguments.query ?? c.arguments.title)));
    for (const { n, allowed, result } of answers) {
      if (allowed && !result.isError) {
        assert.deepEqual(JSON.parse(text(result)).arguments, { query: `q${n}` });
      } else if (allowed && /failing closed/.test(text(result))) {
        // Beside another suite, a stage past the call's window: denied, and never carried out.
        assert.ok(!reached.some((c) => c.arguments.query === `q${n}`), text(result));
      } else if (allowed) {
        // On a machine loaded past the broker's attempt bound, the gate's documented failures:
        // an attempt that did not finish is not repeated, or every attempt failed (beside
        // another suite: PostgreSQL's connections past their bound). The call is reported, and
        // never carried out twice (below).
        assert.match(
          text(result),
          /did not finish; it is not repeated|could not be carried out \(the broker (failed|timed out)\)/,
        );
      } else {
        assert.equal(result.isError, true);
        // Denied by the policy, or (beside another suite) failed closed before the policy.
        assert.match(text(result), /drafts-denied|failing closed/);
      }
    }
    const byPolicy = answers.filter((a) => !a.allowed && /drafts-denied/.test(text(a.result)));
    assert.ok(byPolicy.length >= 1, 'the policy denied the drafts it saw');
    const queries = reached.map((c) => c.arguments.query);
    assert.equal(new Set(queries).size, queries.length, 'no call carried out twice');
    assert.equal(reached.filter((c) => c.tool !== 'search_notes').length, 0, 'no deny reached it');
    const answered = answers.filter((a) => a.allowed && !a.result.isError).length;
    assert.ok(
      answered >= 1 && reached.length >= answered && reached.length <= 40,
      `${answered} answered, ${reached.length} reached the upstream`,
    );
    const decisions = (await ledger(run.session_id)).filter((e) => e.type === 'tool.decision');
    assert.equal(decisions.length, 50);
  });

  test('a revoked run: its client is told the tools changed, lists none, and every call is denied', async () => {
    const run = await notesRun();
    const client = await connect(run);
    const changed = new Promise<void>((resolve) => {
      client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
        resolve();
      });
    });
    // The notice stream is open once the client has listed.
    await client.listTools();
    await new Promise((resolve) => setTimeout(resolve, 300));
    const before = upstream.calls.length;
    await expectStatus(h.api.call('POST', `/v1/runs/${run.run_id}/revoke`, op()), 200);
    await changed;
    const { tools } = await client.listTools();
    assert.deepEqual(tools, []);
    const refused = await call(client, 'mcp__notes__search_notes', { query: 'q' });
    assert.equal(refused.isError, true);
    assert.match(text(refused), /revoked/);
    assert.equal(upstream.calls.length, before);
  });
});

/**
 * A task-augmented `tools/call`, sent again as a client told "make the same call again" does (the
 * gate busy, or still evaluating past its wait), until the task is created: the same tool and
 * arguments are the same task.
 */
async function startTask(
  client: Client,
  args: Record<string, unknown>,
  name = 'mcp__notes__create_note',
) {
  for (let tries = 0; ; tries += 1) {
    try {
      return await client.request(
        { method: 'tools/call', params: { name, arguments: args, task: { ttl: 60_000 } } },
        CreateTaskResultSchema,
        { timeout: 90_000 },
      );
    } catch (err) {
      if (tries > 100 || !/make the same call again/.test(String(err))) throw err;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }
}

function taskResult(client: Client, taskId: string) {
  return client.request({ method: 'tasks/result', params: { taskId } }, CallToolResultSchema, {
    timeout: 60_000,
  }) as Promise<CallToolResult>;
}

async function until<T>(read: () => Promise<T | undefined>, ms = 30_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await read();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** A raw `initialize`: the session id the gate answered with. */
async function initializeSession(sessionToken: string): Promise<string> {
  const init = await rawMcp(sessionToken, initializeRequest);
  assert.equal(init.status, 200);
  const sessionId = init.headers.get('mcp-session-id');
  assert.ok(sessionId);
  return sessionId;
}

function rawMcp(
  sessionToken: string,
  message: unknown,
  sessionId?: string,
  version = '2025-11-25',
) {
  return fetch(new URL('/mcp', h.api.url), {
    method: 'POST',
    headers: {
      authorization: `Bearer ${sessionToken}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': version,
      ...(sessionId && { 'mcp-session-id': sessionId }),
    },
    body: JSON.stringify(message),
  });
}

async function pendingOf(run: CreatedRun) {
  const { rows } = await h.db.query<{ session_id: string; tool_call_id: string }>(
    `select session_id, tool_call_id from approvals where session_id = $1 and status = 'pending'`,
    [run.session_id],
  );
  assert.equal(rows.length, 1);
  return rows[0]!;
}
