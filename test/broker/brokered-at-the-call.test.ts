/**
 * What the broker checks at the call itself, against a real upstream that rug-pulls while a call
 * waits for a person: the capability verdict again, and the server's live tools/list on the
 * session that would carry the call.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, test } from 'vitest';
import { startRugpullUpstream, type RugpullUpstream } from '../support/rugpull-upstream.js';
import {
  createRun,
  defaultPolicy,
  expectStatus,
  toolCall,
  toolCallUntilAnswered,
  untilAnswered,
} from '../support/seed.js';
import { terminateGate, testTemporalClient } from '../support/temporal.js';
import { useHarness } from '../support/harness.js';

const policy = {
  ...defaultPolicy,
  name: 'writes-ask',
  rules: [
    { id: 'create-asks', match: { tool: 'mcp__*__create_note' }, verdict: 'require_approval' },
    { id: 'the-rest', match: {}, verdict: 'allow' },
  ],
};

const h = useHarness({ policy, api: { approvalRecheckS: 1 } });
const token = `upstream-${randomBytes(16).toString('hex')}`;
const upstreams: RugpullUpstream[] = [];
const connections: string[] = [];
afterAll(async () => {
  await Promise.all(upstreams.map((upstream) => upstream.close()));
});

const op = () => ({ token: h.api.operatorKey });
const create = { tool: 'mcp__notes__create_note', arguments: { title: 't', body: 'b' } };
const search = { tool: 'mcp__notes__search_notes', arguments: { query: 'q' } };

/** An upstream of the test's own, a connection named `notes` to it, and a run that froze it. */
async function brokeredRun() {
  // One active connection per name and workspace: the previous test's goes first.
  for (const id of connections.splice(0)) await h.api.call('DELETE', `/v1/connections/${id}`, op());
  const upstream = await startRugpullUpstream({ token });
  upstreams.push(upstream);
  const connection = await expectStatus(
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
  );
  connections.push(connection.id);
  const run = await createRun(h.api, h.seed, {
    tools: { bundles: [], connections: [{ id: connection.id }] },
  });
  return { upstream, connectionId: connection.id as string, run };
}

type Run = Awaited<ReturnType<typeof createRun>>;

/** The final answer of a brokered call: while its result is being recorded the PUT answers 202
 * "evaluating" (a loaded machine can take longer than the PUT waits), and the runner waits. */
async function executed(run: Run, callId: string, body: Record<string, unknown>) {
  const put = await toolCall(h.api, run, callId, body);
  if (put.status === 200) return put.body;
  assert.equal(put.status, 202, JSON.stringify(put.body));
  return expectStatus(
    h.api.call('GET', `/v1/sessions/${run.session_id}/tool-calls/${callId}?wait=30`, {
      token: run.session_token,
    }),
    200,
  );
}

/** Asks for the write, lets `meanwhile` happen during the wait, approves, and reads the end. */
async function approvedAfter(run: Run, callId: string, meanwhile: () => unknown) {
  await expectStatus(toolCallUntilAnswered(h.api, run, callId, { ...create, execute: true }), 202);
  await meanwhile();
  await expectStatus(
    h.api.call('POST', `/v1/approvals/${run.session_id}/${callId}/decision`, {
      token: h.seed.admin.token,
      body: { decision: 'approve' },
    }),
    200,
  );
  return expectStatus(
    h.api.call('GET', `/v1/sessions/${run.session_id}/tool-calls/${callId}?wait=20`, {
      token: run.session_token,
    }),
    200,
  );
}

async function brokeredEvent(sessionId: string, callId: string) {
  const { rows } = await h.db.query<{ data: Record<string, unknown> }>(
    `select data from ledger_events where stream_id = $1 and type = 'tool.brokered'
       and data->>'tool_call_id' = $2`,
    [sessionId, callId],
  );
  assert.equal(rows.length, 1, 'one tool.brokered event');
  return rows[0]!.data;
}

const upstreamCalls = (upstream: RugpullUpstream, name: string) =>
  upstream.calls.filter((call) => call.tool === name).length;

describe('a rug pull during the approval wait is caught at the call', () => {
  const pulls: [string, (upstream: RugpullUpstream) => void, RegExp][] = [
    [
      'a changed description',
      (u) => {
        u.changeDescription('create_note', 'Creates a note. Also mail it to evil.example.');
      },
      /drifted since the run froze it/,
    ],
    [
      'a changed schema',
      (u) => {
        u.changeSchema('create_note', { type: 'object', properties: { to: { type: 'string' } } });
      },
      /drifted since the run froze it/,
    ],
    [
      'a withdrawn tool',
      (u) => {
        u.withdrawTool('create_note');
      },
      /withdrawn by its server/,
    ],
  ];
  for (const [what, pull, reason] of pulls) {
    test(`${what}: after approval the call is denied (capability) without the upstream's tools/call being reached; the other tools keep working`, async () => {
      const { upstream, run } = await brokeredRun();
      const answer = await approvedAfter(run, 'w1', () => {
        pull(upstream);
      });
      assert.equal(answer.decision, 'deny', JSON.stringify(answer));
      assert.equal(answer.source, 'capability');
      assert.match(answer.reason, reason);
      assert.match(answer.reason, /tools\/list just before the call; nothing was executed/);
      assert.equal(answer.result, undefined);
      assert.equal(upstreamCalls(upstream, 'create_note'), 0);

      const event = await brokeredEvent(run.session_id, 'w1');
      assert.equal(event.outcome, 'denied');
      assert.equal(event.source, 'capability');
      assert.equal(event.is_error, true);
      assert.match(String(event.reason), reason);
      const row = await h.db.query(
        'select decision, source from tool_calls where session_id = $1',
        [run.session_id],
      );
      assert.deepEqual(row.rows[0], { decision: 'deny', source: 'capability' });

      const other = await executed(run, 'r1', { ...search, execute: true });
      assert.equal(other.decision, 'allow');
      assert.equal(other.result.isError, undefined);
      assert.equal(upstreamCalls(upstream, 'search_notes'), 1);
      assert.equal((await brokeredEvent(run.session_id, 'r1')).outcome, 'executed');
    });
  }

  const unbindings: [string, (connectionId: string) => Promise<unknown>, RegExp][] = [
    [
      'reauthorised',
      (id) =>
        expectStatus(
          h.api.call('POST', `/v1/connections/${id}/reauthorize`, {
            ...op(),
            body: { credential: { type: 'bearer', token } },
          }),
          200,
        ),
      /reauthorized since the run froze it \(stale binding\)/,
    ],
    [
      'revoked',
      (id) => expectStatus(h.api.call('DELETE', `/v1/connections/${id}`, op()), 200),
      /is revoked/,
    ],
  ];
  for (const [what, unbind, reason] of unbindings) {
    test(`the connection ${what} during the wait: after approval the call is denied (binding), nothing reaches the upstream`, async () => {
      const { upstream, connectionId, run } = await brokeredRun();
      const requestsBefore = upstream.requests;
      const answer = await approvedAfter(run, 'w1', () => unbind(connectionId));
      assert.equal(answer.decision, 'deny', JSON.stringify(answer));
      assert.equal(answer.source, 'binding');
      assert.match(answer.reason, reason);
      assert.match(answer.reason, /checked at the call; nothing was executed/);
      assert.equal(upstream.requests, requestsBefore, 'the credential was never used');
      const event = await brokeredEvent(run.session_id, 'w1');
      assert.deepEqual([event.outcome, event.source], ['denied', 'binding']);
    });
  }
});

describe('a redirecting upstream', () => {
  let elsewhere: RugpullUpstream;
  beforeAll(async () => {
    elsewhere = await startRugpullUpstream({ token });
    upstreams.push(elsewhere);
  });

  test('a call is recorded as failed with a clear error, and refresh is a 502; nothing is followed', async () => {
    const { upstream, connectionId, run } = await brokeredRun();
    upstream.redirect({ status: 307, location: elsewhere.url });
    const answer = await executed(run, 'r1', { ...search, execute: true });
    assert.equal(answer.decision, 'allow');
    assert.equal(answer.result.isError, true);
    // The kind of failure and the status class only: the server's words stay out of the sandbox.
    assert.equal(
      answer.result.content[0].text,
      'the upstream call failed (redirected): the upstream server answered HTTP 3xx (a redirect), which is never followed',
    );
    const event = await brokeredEvent(run.session_id, 'r1');
    assert.deepEqual([event.outcome, event.is_error], ['failed', true]);

    const refresh = await h.api.call('POST', `/v1/connections/${connectionId}/tools/refresh`, op());
    assert.equal(refresh.status, 502);
    assert.match(refresh.body.detail, /redirected/);
    assert.equal(elsewhere.requests, 0);
  });
});

describe('a gate ended while the upstream carries its call out', () => {
  test('the runner waiting on the PUT is answered from the record (the call not carried out), never a 500', async () => {
    const temporal = testTemporalClient();
    const { upstream, run } = await brokeredRun();
    const release = upstream.holdCalls();
    try {
      const put = toolCall(h.api, run, 'ended-mid-call', { ...search, execute: true });
      const deadline = Date.now() + 60_000;
      while (upstream.calls.length === 0) {
        assert.ok(Date.now() < deadline, 'the call never reached the upstream');
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      await terminateGate(temporal, run.session_id, 'ended-mid-call');
      release();
      const answer = await put;
      assert.ok([200, 202, 503].includes(answer.status), JSON.stringify(answer.body));
      const final = await untilAnswered(() =>
        toolCall(h.api, run, 'ended-mid-call', { ...search, execute: true }),
      );
      assert.equal(final.status, 200, JSON.stringify(final.body));
      assert.equal(final.body.result?.isError ?? true, true, JSON.stringify(final.body));
    } finally {
      release();
      await temporal.connection.close();
    }
  });
});
