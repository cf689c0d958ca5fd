/**
 * `/mcp` driven by the Python MCP SDK (`mcp` from PyPI, pinned in .tools/ by the bootstrap) over
 * Streamable HTTP with a run's session token, against the real API, Temporal, PostgreSQL and a
 * real upstream MCP server reached through a brokered connection.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, test } from 'vitest';
import { ensureMcpPython, mcpPythonClientCommand } from '../../tools/test/mcp-python-install.js';
import { useHarness } from '../support/harness.js';
import { startRugpullUpstream, type RugpullUpstream } from '../support/rugpull-upstream.js';
import { createRun, defaultPolicy, expectStatus, type CreatedRun } from '../support/seed.js';
import { decideInWebForm } from '../support/web-form.js';

const h = useHarness({
  policy: {
    ...defaultPolicy,
    name: 'remote-mcp-python',
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
const running: ChildProcessWithoutNullStreams[] = [];

type Step = Record<string, unknown> & { op: string };
type Outcome = Record<string, any>;

/** The Python client on its own connection: its outcomes, one a step, read as they come. */
function pythonClient(run: CreatedRun, steps: Step[]) {
  const [python, script] = mcpPythonClientCommand();
  const child = spawn(
    python,
    [script, new URL('/mcp', h.api.url).toString(), JSON.stringify(steps)],
    {
      env: { PATH: process.env.PATH ?? '', GATE_SESSION_TOKEN: run.session_token },
    },
  );
  running.push(child);
  const errors: string[] = [];
  child.stderr.on('data', (chunk: Buffer) => errors.push(chunk.toString()));
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  return {
    async next(): Promise<Outcome> {
      const line = await lines.next();
      if (line.done) throw new Error(`the Python client ended: ${errors.join('')}`);
      return JSON.parse(line.value) as Outcome;
    },
    goAhead() {
      child.stdin.write('go\n');
    },
    async all(): Promise<Outcome[]> {
      const outcomes: Outcome[] = [];
      for (let n = 0; n < steps.length; n += 1) outcomes.push(await this.next());
      return outcomes;
    },
  };
}

async function notesRun(): Promise<CreatedRun> {
  return createRun(h.api, h.seed, {
    tools: { bundles: [h.seed.bundleId], connections: [{ id: connection }] },
  });
}

async function pendingOf(run: CreatedRun) {
  for (let tries = 0; tries < 300; tries += 1) {
    const { rows } = await h.db.query<{ session_id: string; tool_call_id: string }>(
      `select session_id, tool_call_id from approvals where session_id = $1 and status = 'pending'`,
      [run.session_id],
    );
    if (rows[0]) return rows[0];
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error('no pending approval');
}

describe('the remote MCP endpoint, driven by the Python MCP SDK', () => {
  beforeAll(async () => {
    await ensureMcpPython();
    upstream = await startRugpullUpstream({ token });
    connection = (
      await expectStatus(
        h.api.call('POST', '/v1/connections', {
          token: h.api.operatorKey,
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
    for (const child of running) child.kill('SIGKILL');
    await upstream.close();
  });

  test('it lists the frozen brokered tools, an allowed call returns the upstream’s result, a deny is a tool error', async () => {
    const run = await notesRun();
    const before = upstream.calls.length;
    const [listed, allowed, denied] = await pythonClient(run, [
      { op: 'list' },
      {
        op: 'call_until_answered',
        name: 'mcp__notes__search_notes',
        arguments: { query: 'from python' },
      },
      {
        op: 'call_until_answered',
        name: 'mcp__notes__create_note',
        arguments: { title: 'draft', body: 'b' },
      },
    ]).all();
    assert.deepEqual(listed, { tools: ['mcp__notes__create_note', 'mcp__notes__search_notes'] });
    assert.equal(allowed?.is_error, false, JSON.stringify(allowed));
    assert.deepEqual(JSON.parse(allowed.text).arguments, { query: 'from python' });
    assert.equal(denied?.is_error, true);
    assert.match(denied.text, /drafts-denied/);
    assert.equal(upstream.calls.length, before + 1, 'the deny never reached the upstream');
  });

  test('approval as a task: working, then completed with the result once approved; a cancelled one never runs', async () => {
    const run = await notesRun();
    const before = upstream.calls.length;
    const args = { title: `task ${randomUUID()}`, body: 'b' };
    const client = pythonClient(run, [
      { op: 'task', name: 'mcp__notes__create_note', arguments: args },
      { op: 'task_get', task_id: 'last' },
      { op: 'task_result', task_id: 'last' },
      { op: 'task_get', task_id: 'last' },
      { op: 'task', name: 'mcp__notes__create_note', arguments: { title: 'never', body: 'b' } },
      { op: 'task_cancel', task_id: 'last' },
      { op: 'task_get', task_id: 'last' },
    ]);
    const created = await client.next();
    assert.equal(created.status, 'working', JSON.stringify(created));
    const working = await client.next();
    assert.equal(working.status, 'working');
    assert.match(working.message, /waiting for an approval/);
    await decideInWebForm(h.api.url, h.seed.admin.token, await pendingOf(run), 'approve');
    const result = await client.next();
    assert.equal(result.is_error, false, result.text);
    assert.deepEqual(JSON.parse(result.text).arguments, args);
    assert.equal((await client.next()).status, 'completed');
    assert.equal((await client.next()).status, 'working');
    assert.equal((await client.next()).status, 'cancelled');
    assert.equal((await client.next()).status, 'cancelled');
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    assert.deepEqual(
      upstream.calls.slice(before).map((c) => c.arguments.title),
      [args.title],
      'the approved task ran once, the cancelled one never',
    );
  });

  test('approval without tasks: a bounded wait, "call again", and the same call made again runs once', async () => {
    const run = await notesRun();
    const before = upstream.calls.length;
    const args = { title: `plain ${randomUUID()}`, body: 'b' };
    const call = { op: 'call', name: 'mcp__notes__create_note', arguments: args };
    const client = pythonClient(run, [
      call,
      { op: 'wait_line' },
      { ...call, op: 'call_until_answered' },
    ]);
    const waited = await client.next();
    assert.equal(waited.is_error, true);
    assert.match(waited.text, /Make the same call again/);
    await expectStatus(
      h.api.call(
        'POST',
        `/v1/approvals/${run.session_id}/${(await pendingOf(run)).tool_call_id}/decision`,
        {
          token: h.seed.admin.token,
          body: { decision: 'approve' },
        },
      ),
      200,
    );
    client.goAhead();
    await client.next();
    const retried = await client.next();
    assert.equal(retried.is_error, false, retried.text);
    assert.equal(upstream.calls.length, before + 1, 'executed once');
  });

  test('a revoked run: the client is told its tools changed, then lists none and every call is denied', async () => {
    const run = await notesRun();
    const before = upstream.calls.length;
    const client = pythonClient(run, [
      { op: 'list' },
      { op: 'wait_line' },
      { op: 'wait_list_changed', seconds: 30 },
      { op: 'list' },
      { op: 'call', name: 'mcp__notes__search_notes', arguments: { query: 'q' } },
    ]);
    assert.equal((await client.next()).tools.length, 2);
    await expectStatus(
      h.api.call('POST', `/v1/runs/${run.run_id}/revoke`, { token: h.api.operatorKey }),
      200,
    );
    client.goAhead();
    await client.next();
    assert.deepEqual(await client.next(), { list_changed: true });
    assert.deepEqual(await client.next(), { tools: [] });
    const refused = await client.next();
    assert.equal(refused.is_error, true);
    assert.match(refused.text, /revoked/);
    assert.equal(upstream.calls.length, before);
  });
});
