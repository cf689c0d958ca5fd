import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, test } from 'vitest';
import Anthropic from '@anthropic-ai/sdk';
import { asSessionId, asToolCallId, gateWorkflowId } from '../../src/domain/gate/ids.js';
import { admit, eventsOf, modelRequest, reportUsage } from '../budget/support.js';
import { createProvider, gateClient, postMessages } from '../model/support.js';
import { startFakeAnthropic, type FakeAnthropic } from '../support/fake-anthropic.js';
import { useHarness } from '../support/harness.js';
import {
  createRun,
  defaultPolicy,
  expectStatus,
  seedWorkspace,
  toolCall,
  toolCallUntilAnswered,
  type CreatedRun,
} from '../support/seed.js';
import { testTemporalClient } from '../support/temporal.js';
import { csrfIn, signInOverHttp } from '../support/web-form.js';

/**
 * `POST /v1/runs/{id}/revoke` is a run's end: from then its session token is refused
 * everywhere, and what its pending approvals paused is denied.
 */
const h = useHarness({
  policy: {
    ...defaultPolicy,
    rules: [
      { id: 'reads', match: { effect: 'read' }, verdict: 'allow' },
      { id: 'bash-asks', match: { tool: 'Bash' }, verdict: 'require_approval' },
    ],
  },
});
let fake: FakeAnthropic;
const hello = {
  model: 'claude-fake-1',
  max_tokens: 50,
  messages: [{ role: 'user' as const, content: 'Hi.' }],
};

beforeAll(async () => {
  fake = await startFakeAnthropic();
});
afterAll(async () => {
  await fake.close();
});

const revoke = (runId: string, token?: string) =>
  h.api.call('POST', `/v1/runs/${runId}/revoke`, { ...(token && { token }) });
const read = { tool: 'Read', arguments: { file_path: 'README.md' } };

async function member(workspace: string, role: 'member' | 'approver' | 'admin' = 'member') {
  const created = await expectStatus(
    h.api.call('POST', `/v1/workspaces/${workspace}/members`, {
      token: h.api.operatorKey,
      body: { name: `m-${randomUUID().slice(0, 6)}`, role },
    }),
    201,
  );
  return { user_id: created.user_id as string, token: created.user_token as string };
}

/** Every way the runner's token reaches the API, each as a request to send. */
function runnerRequests(run: CreatedRun) {
  const sid = run.session_id;
  const token = run.session_token;
  return {
    'a tool call': () => toolCall(h.api, run, `c-${randomUUID()}`, read),
    'a tool call read': () => h.api.call('GET', `/v1/sessions/${sid}/tool-calls/c1`, { token }),
    'the tool set': () => h.api.call('GET', `/v1/sessions/${sid}/toolset`, { token }),
    'a model request': () => admit(h.api, run, modelRequest(`m-${randomUUID()}`, 10)),
    'a usage report': () => reportUsage(h.api, run, 'm1', { input_tokens: 1, output_tokens: 1 }),
    'a ledger page': () => h.api.call('GET', `/v1/sessions/${sid}/events`, { token }),
    'the ledger stream': () => h.api.call('GET', `/v1/sessions/${sid}/events/stream`, { token }),
    'the run': () => h.api.call('GET', `/v1/runs/${run.run_id}`, { token }),
  };
}

describe('a revoked run', () => {
  test('its session token is refused with 401 everywhere: tool calls, model requests, the ledger, the run, and the Anthropic endpoint (authentication_error) — nothing reaches the provider', async () => {
    const provider = await createProvider(h.api, h.seed, fake.url);
    const run = await createRun(h.api, h.seed, { model_provider: provider.id });
    const requests = runnerRequests(run);
    await expectStatus(toolCallUntilAnswered(h.api, run, 'c1', read), 200);
    await expectStatus(admit(h.api, run, modelRequest('m1', 10)), 201);
    const client = gateClient(h.api, run.session_token);
    await client.messages.create(hello);
    for (const [what, send] of Object.entries(requests)) {
      if (what === 'the ledger stream') continue; // an open stream is the last test's
      assert.ok((await send()).status < 400, `${what} works before the revocation`);
    }

    const revoked = await expectStatus(revoke(run.run_id, h.api.operatorKey), 200);
    assert.equal(revoked.run_id, run.run_id);
    assert.equal(revoked.revoked_by, null);
    assert.ok(!Number.isNaN(Date.parse(revoked.revoked_at)));

    for (const [what, send] of Object.entries(requests)) {
      const answer = await send();
      assert.equal(answer.status, 401, `${what}: ${JSON.stringify(answer.body)}`);
      assert.match(answer.headers.get('content-type') ?? '', /^application\/problem\+json/, what);
    }
    const upstreamBefore = fake.requests.length;
    await assert.rejects(client.messages.create(hello), (err: unknown) => {
      assert.ok(err instanceof Anthropic.AuthenticationError, String(err));
      assert.equal((err.error as { error: { type: string } }).error.type, 'authentication_error');
      return true;
    });
    await assert.rejects(
      client.messages.countTokens({ model: hello.model, messages: hello.messages }),
      Anthropic.AuthenticationError,
    );
    const bearer = await postMessages(h.api, JSON.stringify(hello), {
      authorization: `Bearer ${run.session_token}`,
    });
    assert.equal(bearer.status, 401);
    assert.equal(bearer.json.type, 'error');
    assert.equal(bearer.json.error.type, 'authentication_error');
    assert.equal(fake.requests.length, upstreamBefore, 'nothing reached the provider');

    const [event] = await eventsOf(h.db, run.session_id, 'run.revoked');
    assert.deepEqual(event!.data, { run_id: run.run_id, revoked_by: null });
    const view = await expectStatus(
      h.api.call('GET', `/v1/runs/${run.run_id}`, { token: h.api.operatorKey }),
      200,
    );
    assert.deepEqual(view.revocation, {
      revoked_at: revoked.revoked_at,
      revoked_by: null,
      because: 'revoked',
    });
  });

  test('revoking again changes nothing: the same revocation, one run.revoked in the ledger', async () => {
    const run = await createRun(h.api, h.seed);
    const first = await expectStatus(revoke(run.run_id, h.api.operatorKey), 200);
    const again = await expectStatus(revoke(run.run_id, h.api.operatorKey), 200);
    assert.deepEqual(again, first);
    assert.equal((await eventsOf(h.db, run.session_id, 'run.revoked')).length, 1);
  });

  test("the run's invoker revokes with their user token; another member, an admin who did not invoke it, a member elsewhere, a runner, a suspended invoker and no credential cannot", async () => {
    const invoker = await member(h.seed.workspace);
    const run = await createRun(h.api, h.seed, { invoked_by: invoker.user_id });
    const colleague = await member(h.seed.workspace, 'approver');
    const stranger = (await seedWorkspace(h.api)).admin;
    const refusals: [string, string | undefined, number][] = [
      ['no credential', undefined, 401],
      ["the run's own runner", run.session_token, 403],
      ['another member of the workspace', colleague.token, 403],
      ['an admin who did not invoke it', h.seed.admin.token, 403],
      ['an admin of another workspace', stranger.token, 404],
    ];
    for (const [who, token, status] of refusals) {
      const answer = await revoke(run.run_id, token);
      assert.equal(answer.status, status, `${who}: ${JSON.stringify(answer.body)}`);
    }
    assert.equal((await revoke(randomUUID(), h.api.operatorKey)).status, 404);
    await expectStatus(toolCallUntilAnswered(h.api, run, 'c1', read), 200);

    const revoked = await expectStatus(revoke(run.run_id, invoker.token), 200);
    assert.equal(revoked.revoked_by, invoker.user_id);
    assert.equal((await toolCall(h.api, run, 'c2', read)).status, 401);

    const suspended = await member(h.seed.workspace);
    const theirs = await createRun(h.api, h.seed, { invoked_by: suspended.user_id });
    await expectStatus(
      h.api.call('PATCH', `/v1/workspaces/${h.seed.workspace}/members/${suspended.user_id}`, {
        token: h.api.operatorKey,
        body: { status: 'suspended' },
      }),
      200,
    );
    assert.equal((await revoke(theirs.run_id, suspended.token)).status, 403);
  });

  test("an invoker's access ended by the operator ends their runs: a paused call is denied and its workflow woken, later calls are refused, deciding is a 409, and reactivation revives no run", async () => {
    const leaver = await member(h.seed.workspace);
    const stays = await createRun(h.api, h.seed);
    const theirs = await createRun(h.api, h.seed, { invoked_by: leaver.user_id });
    const bash = { tool: 'Bash', arguments: { command: 'deploy' } };
    await expectStatus(toolCallUntilAnswered(h.api, theirs, 'paused', bash), 202);
    const patch = (status: string) =>
      expectStatus(
        h.api.call('PATCH', `/v1/workspaces/${h.seed.workspace}/members/${leaver.user_id}`, {
          token: h.api.operatorKey,
          body: { status },
        }),
        200,
      );
    await patch('suspended');
    const paused = await h.db.query<{ decision: string; reason: string }>(
      `select decision, answer->>'reason' as reason from tool_calls
       where session_id = $1 and tool_call_id = 'paused'`,
      [theirs.session_id],
    );
    assert.deepEqual(
      { ...paused.rows[0] },
      { decision: 'deny', reason: 'denied by the revocation of the run' },
    );
    // Woken after the commit: the workflow ends with the deny, long before its re-check timer.
    const client = testTemporalClient();
    try {
      const workflowId = gateWorkflowId(asSessionId(theirs.session_id), asToolCallId('paused'));
      const started = Date.now();
      const answer = await client.workflow.getHandle(workflowId).result();
      assert.equal((answer as { decision: string }).decision, 'deny');
      assert.ok(Date.now() - started < 60_000, 'woken, not left to its five-minute re-check');
    } finally {
      await client.connection.close();
    }
    assert.equal((await toolCall(h.api, theirs, 'c1', read)).status, 401);
    const run = await expectStatus(
      h.api.call('GET', `/v1/runs/${theirs.run_id}`, { token: h.api.operatorKey }),
      200,
    );
    assert.equal(run.revocation.revoked_by, null);
    assert.equal(run.revocation.because, 'invoker_access_ended');
    const events = await expectStatus(
      h.api.call(
        'GET',
        `/v1/workspaces/${h.seed.workspace}/members/${leaver.user_id}/access-events`,
        { token: h.api.operatorKey },
      ),
      200,
    );
    assert.ok(
      (events as unknown as { type: string }[]).some((e) => e.type === 'runs.ended'),
      JSON.stringify(events),
    );
    await patch('active');
    assert.equal((await toolCall(h.api, theirs, 'c2', read)).status, 401, 'still ended');
    await expectStatus(toolCallUntilAnswered(h.api, stays, 'c1', read), 200);
    // A run the member starts after coming back is theirs to use.
    const after = await createRun(h.api, h.seed, { invoked_by: leaver.user_id });
    await expectStatus(toolCallUntilAnswered(h.api, after, 'c1', read), 200);
  });

  test('its pending approvals are denied by the revocation, the paused workflows answer deny, and deciding them afterwards is a 409 run_revoked, in the API and in the web form', async () => {
    const run = await createRun(h.api, h.seed);
    const bash = { tool: 'Bash', arguments: { command: 'deploy' } };
    await expectStatus(toolCallUntilAnswered(h.api, run, 'c1', bash), 202);
    await expectStatus(toolCallUntilAnswered(h.api, run, 'c2', bash), 202);
    await expectStatus(revoke(run.run_id, h.api.operatorKey), 200);

    const types = (await eventsOf(h.db, run.session_id)).map((e) => e.type);
    assert.deepEqual(types.slice(types.indexOf('run.revoked')), [
      'run.revoked',
      'approval.decided',
      'tool.decision',
      'approval.decided',
      'tool.decision',
    ]);
    const { rows } = await h.db.query(
      `select a.status, a.decision, t.decision as answered, t.answer->>'reason' as reason
       from approvals a join tool_calls t using (session_id, tool_call_id)
       where a.session_id = $1 order by a.tool_call_id`,
      [run.session_id],
    );
    for (const row of rows) {
      assert.deepEqual(
        { ...row },
        {
          status: 'denied',
          decision: 'deny',
          answered: 'deny',
          reason: 'denied by the revocation of the run',
        },
      );
    }
    // Woken by the revocation, the paused workflow reads the row and ends with the deny.
    const client = testTemporalClient();
    try {
      const workflowId = gateWorkflowId(asSessionId(run.session_id), asToolCallId('c1'));
      const answer = await client.workflow.getHandle(workflowId).result();
      assert.equal((answer as { decision: string }).decision, 'deny');
    } finally {
      await client.connection.close();
    }

    const late = await h.api.call('POST', `/v1/approvals/${run.session_id}/c1/decision`, {
      token: h.seed.admin.token,
      body: { decision: 'approve' },
    });
    assert.equal(late.status, 409);
    assert.equal(late.body.outcome, 'run_revoked');
    assert.match(late.body.detail, /was revoked/);
    assert.equal(late.body.final.status, 'denied');

    const cookie = await signInOverHttp(h.api.url, h.seed.admin.token);
    assert.ok(cookie);
    const page = `${h.api.url}/approvals/${run.session_id}/c2`;
    const detail = await fetch(page, { headers: { cookie } });
    assert.equal(detail.status, 200);
    const decided = await fetch(`${page}/decision`, {
      method: 'POST',
      redirect: 'manual',
      headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        csrf: csrfIn(await detail.text()),
        decision: 'approve',
      }).toString(),
    });
    assert.equal(decided.status, 409);
    assert.match(await decided.text(), /This run was revoked/);
  });

  test("a runner's open ledger stream ends with the run.revoked event", async () => {
    const run = await createRun(h.api, h.seed);
    const response = await fetch(`${h.api.url}/v1/sessions/${run.session_id}/events/stream`, {
      headers: { authorization: `Bearer ${run.session_token}`, accept: 'text/event-stream' },
    });
    assert.equal(response.status, 200);
    assert.ok(response.body);
    const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
    let text = '';
    while (!text.includes('event: run.created')) {
      const { value, done } = await reader.read();
      assert.ok(!done, 'the stream is open');
      text += value;
    }
    await expectStatus(revoke(run.run_id, h.api.operatorKey), 200);
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      text += value;
    }
    const events = [...text.matchAll(/^event: (.+)$/gm)].map((m) => m[1]);
    assert.deepEqual(events, ['run.created', 'run.revoked']);
  });

  test("a stream opened past the ledger's end still ends with the run.revoked event", async () => {
    // A runner that claims to have read events not yet written must not outlive its revocation.
    const run = await createRun(h.api, h.seed);
    const url = `${h.api.url}/v1/sessions/${run.session_id}/events/stream?after=1000000`;
    const response = await fetch(url, {
      headers: { authorization: `Bearer ${run.session_token}`, accept: 'text/event-stream' },
    });
    assert.equal(response.status, 200);
    assert.ok(response.body);
    const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
    await reader.read(); // the stream's opening comment: it is open and following
    await expectStatus(revoke(run.run_id, h.api.operatorKey), 200);
    let text = '';
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      text += value;
    }
    const events = [...text.matchAll(/^event: (.+)$/gm)].map((m) => m[1]);
    assert.deepEqual(events, ['run.revoked']);
  });
});
