/**
 * A gate that ended without recording a decision (terminated, or failed closed past its bounds)
 * is a stored deny the next time the call is sent, never "send it again" forever.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, test } from 'node:test';
import { Client, Connection } from '@temporalio/client';
import { asSessionId, asToolCallId, gateWorkflowId } from '../../src/domain/gate/ids.js';
import { testConfig } from '../support/env.js';
import { useHarness } from '../support/harness.js';
import { createRun, defaultPolicy, expectStatus, toolCall } from '../support/seed.js';

const h = useHarness({
  policy: {
    ...defaultPolicy,
    name: 'ask-for-bash',
    rules: [{ id: 'ask', match: { tool: 'Bash' }, verdict: 'require_approval' }],
  },
});
let temporal: Client;

before(async () => {
  temporal = new Client({
    connection: await Connection.connect({ address: testConfig().temporal.address }),
  });
});
after(async () => {
  await temporal.connection.close();
});

test('a gate terminated while paused: sending the call again records and answers a deny, once', async () => {
  const run = await createRun(h.api, h.seed);
  const id = randomUUID();
  const body = { tool: 'Bash', arguments: { command: 'make deploy' } };
  await expectStatus(toolCall(h.api, run, id, body), 202);
  await temporal.workflow
    .getHandle(gateWorkflowId(asSessionId(run.session_id), asToolCallId(id)))
    .terminate('gone');

  const started = Date.now();
  const answer = await expectStatus(toolCall(h.api, run, id, body), 200);
  assert.ok(Date.now() - started < 5_000);
  assert.equal(answer.decision, 'deny');
  assert.equal(answer.source, 'policy');
  assert.match(answer.reason, /ended without recording a decision/);
  assert.deepEqual(await expectStatus(toolCall(h.api, run, id, body), 200), answer);

  const { rows } = await h.db.query<{ type: string }>(
    `select type from ledger_events where stream_id = $1 and type = 'tool.decision'`,
    [run.session_id],
  );
  assert.equal(rows.length, 1);
});
