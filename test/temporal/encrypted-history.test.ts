import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { test } from 'vitest';
import { gateWorkflowId, asSessionId, asToolCallId } from '../../src/domain/gate/ids.js';
import { useHarness } from '../support/harness.js';
import { closedHistory, payloadsOf } from '../support/temporal.js';
import { createRun, defaultPolicy, expectStatus, toolCallUntilAnswered } from '../support/seed.js';

const uiOrigin = 'http://127.0.0.1:8233';
const h = useHarness({
  policy: {
    ...defaultPolicy,
    rules: [{ id: 'bash-asks', match: { tool: 'Bash' }, verdict: 'require_approval' }],
  },
  api: { approvalRecheckS: 1, codecCorsOrigins: [uiOrigin] },
});

test('arguments and reasons in history are ciphertext; the codec endpoint opens them for the operator only', async () => {
  const canary = `canary-${randomUUID()}`;
  const run = await createRun(h.api, h.seed);
  await expectStatus(
    toolCallUntilAnswered(h.api, run, 'c1', {
      tool: 'Bash',
      arguments: { command: `echo ${canary}` },
    }),
    202,
  );
  await expectStatus(
    h.api.call('POST', `/v1/approvals/${run.session_id}/c1/decision`, {
      token: h.seed.admin.token,
      body: { decision: 'approve', reason: `fine: ${canary}-reason` },
    }),
    200,
  );
  await expectStatus(
    h.api.call('GET', `/v1/sessions/${run.session_id}/tool-calls/c1?wait=20`, {
      token: run.session_token,
    }),
    200,
  );
  const workflowId = gateWorkflowId(asSessionId(run.session_id), asToolCallId('c1'));
  // The runner's answer comes from the row; the workflow closes once it has read it too.
  const stored = await closedHistory(h.api.config.temporal, workflowId);
  assert.ok(
    stored.includes('binary/encrypted') ||
      stored.includes(Buffer.from('binary/encrypted').toString('base64')),
  );
  const base64Canary = (text: string) =>
    [0, 1, 2].map((shift) => Buffer.from(text.slice(shift)).toString('base64').slice(4, -4));
  for (const needle of [canary, ...base64Canary(canary)]) {
    assert.ok(!stored.includes(needle), 'the canary is not in the stored history');
  }

  const payloads = payloadsOf(JSON.parse(stored));
  assert.ok(payloads.length >= 3);
  const decode = (token?: string) =>
    h.api.call('POST', '/codec/decode', { ...(token && { token }), body: { payloads } });
  const opened = await expectStatus(decode(h.api.operatorKey), 200);
  const plain = (opened.payloads as { data: string }[])
    .map((p) => Buffer.from(p.data, 'base64').toString('utf8'))
    .join('\n');
  assert.ok(plain.includes(`echo ${canary}`), 'the argument opens');
  assert.ok(plain.includes(`${canary}-reason`), "the approver's reason opens");

  assert.equal((await decode()).status, 401);
  assert.equal((await decode(run.session_token)).status, 403);
  assert.equal((await decode(h.seed.admin.token)).status, 403);
});

test('the codec endpoint answers the Temporal UI origin only, and refuses what does not open', async () => {
  const preflight = await fetch(`${h.api.url}/codec/decode`, {
    method: 'OPTIONS',
    headers: { origin: 'https://elsewhere.example', 'access-control-request-method': 'POST' },
  });
  assert.equal(preflight.headers.get('access-control-allow-origin'), null);
  const fromUi = await fetch(`${h.api.url}/codec/decode`, {
    method: 'OPTIONS',
    headers: { origin: uiOrigin, 'access-control-request-method': 'POST' },
  });
  assert.equal(fromUi.headers.get('access-control-allow-origin'), uiOrigin);
  assert.equal(fromUi.headers.get('access-control-allow-credentials'), 'true');
  const garbage = {
    payloads: [
      {
        metadata: {
          encoding: Buffer.from('binary/encrypted').toString('base64'),
          'encryption-key-id': Buffer.from('retired').toString('base64'),
        },
        data: Buffer.alloc(40).toString('base64'),
      },
    ],
  };
  const refused = await h.api.call('POST', '/codec/decode', {
    token: h.api.operatorKey,
    body: garbage,
  });
  assert.equal(refused.status, 400);
  const malformed = await h.api.call('POST', '/codec/decode', {
    token: h.api.operatorKey,
    body: { payloads: [{ data: 'not base64!' }] },
  });
  assert.equal(malformed.status, 400);
});
