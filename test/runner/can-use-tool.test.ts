import assert from 'node:assert/strict';
import { describe, test } from 'vitest';
import type { PermissionResult } from '@anthropic-ai/claude-agent-sdk';
import { gateCanUseTool } from '../../src/runner/can-use-tool.js';
import { GateClient } from '../../src/runner/gate-client.js';
import { waitFor } from '../../tools/devstack/child-process.js';
import { useHarness } from '../support/harness.js';
import { createRun, defaultPolicy, expectStatus, type CreatedRun } from '../support/seed.js';

const h = useHarness({
  policy: {
    ...defaultPolicy,
    rules: [
      { id: 'reads', match: { effect: 'read' }, verdict: 'allow' },
      {
        id: 'no-rm',
        match: { tool: 'Bash', args: [{ path: '/command', op: 'glob', value: 'rm *' }] },
        verdict: 'deny',
      },
      { id: 'bash-asks', match: { tool: 'Bash' }, verdict: 'require_approval' },
    ],
  },
  api: { approvalRecheckS: 1 },
});

/** The callback as the SDK calls it: tool, input, the abort signal and the tool-use id. */
const canUseToolFor = (run: CreatedRun) => {
  const canUseTool = gateCanUseTool(
    new GateClient({
      baseUrl: h.api.url,
      sessionId: run.session_id,
      sessionToken: run.session_token,
      waitS: 5,
    }),
  );
  return async (
    tool: string,
    input: Record<string, unknown>,
    { signal, toolUseID = 'toolu_unnamed' }: { signal: AbortSignal; toolUseID?: string },
  ): Promise<PermissionResult> => {
    const result = await canUseTool(tool, input, { signal, toolUseID, requestId: 'r' });
    assert.ok(result, 'canUseTool always answers');
    return result;
  };
};

describe("the agent SDK's permission callback, backed by the gate", () => {
  test('an allowed call is allowed with its input unchanged; a policy deny is a deny with the reason', async () => {
    const canUseTool = canUseToolFor(await createRun(h.api, h.seed));
    const signal = new AbortController().signal;
    assert.deepEqual(await canUseTool('Read', { file_path: 'a' }, { signal, toolUseID: 't1' }), {
      behavior: 'allow',
      updatedInput: { file_path: 'a' },
    });
    const denied = await canUseTool('Bash', { command: 'rm -rf /' }, { signal, toolUseID: 't2' });
    assert.ok(denied.behavior === 'deny');
    assert.match(denied.message, /no-rm/);
  });

  test('a schema denial reaches the model as a message naming the failing path, without ending the run', async () => {
    const canUseTool = canUseToolFor(await createRun(h.api, h.seed));
    const denied = await canUseTool(
      'Read',
      {},
      { signal: new AbortController().signal, toolUseID: 't1' },
    );
    assert.ok(denied.behavior === 'deny');
    assert.equal(denied.interrupt, false);
    assert.match(denied.message, /file_path/);
  });

  test('a call that needs approval waits for the human, then allows', async () => {
    const run = await createRun(h.api, h.seed);
    const canUseTool = canUseToolFor(run);
    const pending = canUseTool(
      'Bash',
      { command: 'make deploy' },
      { signal: new AbortController().signal, toolUseID: 'deploy' },
    );
    let approval;
    for (let i = 0; i < 50 && !approval; i += 1) {
      const list = await expectStatus(
        h.api.call('GET', '/v1/approvals', { token: h.seed.admin.token }),
        200,
      );
      approval = list.approvals.find((a: any) => a.session_id === run.session_id);
      if (!approval) await new Promise((r) => setTimeout(r, 100));
    }
    assert.ok(approval);
    await expectStatus(
      h.api.call('POST', `/v1/approvals/${run.session_id}/deploy/decision`, {
        token: h.seed.admin.token,
        body: { decision: 'approve' },
      }),
      200,
    );
    assert.deepEqual(await pending, {
      behavior: 'allow',
      updatedInput: { command: 'make deploy' },
    });
  });

  test('an aborted wait denies; the same tool-use id asked again re-attaches to the one approval', async () => {
    const run = await createRun(h.api, h.seed);
    const canUseTool = canUseToolFor(run);
    const abort = new AbortController();
    const waiting = canUseTool(
      'Bash',
      { command: 'make it' },
      { signal: abort.signal, toolUseID: 'x' },
    );
    // Aborted while it waits on the person: the approval is requested by then.
    await approvalRequested(run.session_id);
    abort.abort();
    assert.equal((await waiting).behavior, 'deny');
    const again = canUseTool(
      'Bash',
      { command: 'make it' },
      { signal: new AbortController().signal, toolUseID: 'x' },
    );
    await approvalRequested(run.session_id);
    await expectStatus(
      h.api.call('POST', `/v1/approvals/${run.session_id}/x/decision`, {
        token: h.seed.admin.token,
        body: { decision: 'approve' },
      }),
      200,
    );
    assert.equal((await again).behavior, 'allow');
    const { rows } = await h.db.query(
      'select count(*)::int as n from approvals where session_id = $1',
      [run.session_id],
    );
    assert.equal(rows[0].n, 1);
  });

  test('a run whose budget is spent is denied with interrupt, ending the run', async () => {
    const run = await createRun(h.api, h.seed, { budget: { max_tokens: 100 } });
    await expectStatus(
      h.api.call('POST', `/v1/sessions/${run.session_id}/model-requests`, {
        token: run.session_token,
        body: {
          request_id: 'r1',
          model: 'claude-sonnet-4',
          max_output_tokens: 1,
          input: { messages: [{ role: 'user', content: 'x' }] },
        },
      }),
      201,
    );
    await expectStatus(
      h.api.call('POST', `/v1/sessions/${run.session_id}/model-requests/r1/usage`, {
        token: run.session_token,
        body: { input_tokens: 60, output_tokens: 60 },
      }),
      200,
    );
    const denied = await canUseToolFor(run)(
      'Read',
      { file_path: 'a' },
      { signal: new AbortController().signal, toolUseID: 'spent' },
    );
    assert.deepEqual(
      denied.behavior === 'deny' && [denied.interrupt, /budget/.test(denied.message)],
      [true, true],
    );
  });
});

describe('the permission callback beside the hook', () => {
  test("a call to the runner's own gate MCP proxy is left to it; every other call is asked of the gate, once", async () => {
    const run = await createRun(h.api, h.seed);
    const canUseTool = gateCanUseTool(
      new GateClient({
        baseUrl: h.api.url,
        sessionId: run.session_id,
        sessionToken: run.session_token,
      }),
      { gateProxies: new Set(['fs']) },
    );
    const signal = new AbortController().signal;
    const served = await canUseTool(
      'mcp__fs__read_file',
      { path: 'a' },
      { signal, toolUseID: 'p1', requestId: 'r1', mcpServer: { name: 'fs', source: 'dynamic' } },
    );
    assert.equal(served?.behavior, 'allow');
    const question = await canUseTool(
      'Read',
      { file_path: 'a' },
      { signal, toolUseID: 'q1', requestId: 'r2' },
    );
    assert.equal(question?.behavior, 'allow');
    const asked = await canUseTool(
      'AskUserQuestion',
      { questions: [] },
      { signal, toolUseID: 'q2', requestId: 'r3' },
    );
    assert.equal(asked?.behavior, 'deny');
    const { rows } = await h.db.query(
      'select tool_call_id from tool_calls where session_id = $1 order by tool_call_id',
      [run.session_id],
    );
    assert.deepEqual(
      rows.map((r) => r.tool_call_id),
      ['q1', 'q2'],
      'the proxy-served call made no gate call; the others one each',
    );
  });
});

/** Waits until the session's approval row is written. */
function approvalRequested(sessionId: string) {
  return waitFor('the approval to be requested', async () => {
    const pending = await h.db.query('select 1 from approvals where session_id = $1', [sessionId]);
    if (pending.rows.length === 0) throw new Error('not yet');
  });
}
