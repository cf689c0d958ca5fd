import assert from 'node:assert/strict';
import { afterAll, beforeAll, describe, test } from 'vitest';
import type { Client } from '@temporalio/client';
import { gateWorkflowId, asSessionId, asToolCallId } from '../../src/domain/gate/ids.js';
import {
  createRun,
  defaultPolicy,
  expectStatus,
  toolCall,
  toolCallUntilAnswered,
} from '../support/seed.js';
import { useHarness } from '../support/harness.js';
import { testTemporalClient } from '../support/temporal.js';

const h = useHarness();
let temporal: Client;

beforeAll(() => {
  temporal = testTemporalClient();
});
afterAll(async () => {
  await temporal.connection.close();
});

describe('the gate answers each tool call', () => {
  test('a call the policy allows is allowed, naming the rule', async () => {
    const run = await createRun(h.api, h.seed);
    const answer = await expectStatus(
      toolCallUntilAnswered(h.api, run, 'c1', { tool: 'Read', arguments: { file_path: 'a' } }),
      200,
    );
    assert.deepEqual(answer, {
      status: 'decided',
      decision: 'allow',
      reason: 'allowed by rule "reads"',
      rule_id: 'reads',
    });
  });

  test('a call the policy denies is denied with source=policy', async () => {
    const run = await createRun(h.api, h.seed);
    const answer = await expectStatus(
      toolCallUntilAnswered(h.api, run, 'c1', { tool: 'Bash', arguments: { command: 'rm -rf /' } }),
      200,
    );
    assert.equal(answer.decision, 'deny');
    assert.equal(answer.source, 'policy');
    assert.equal(answer.rule_id, 'no-rm');
  });

  test('a tool outside the frozen set is denied with source=capability', async () => {
    const run = await createRun(h.api, h.seed);
    const answer = await expectStatus(
      toolCallUntilAnswered(h.api, run, 'c1', { tool: 'WebFetch', arguments: {} }),
      200,
    );
    assert.equal(answer.decision, 'deny');
    assert.equal(answer.source, 'capability');
    assert.match(answer.reason, /not in the run's frozen tool set/);
  });

  test('the longest tool name a runner may send, in four-byte characters, is denied, not refused by Temporal', async () => {
    // The start carries the tool as a search attribute: 256 characters (zod counts code points),
    // 1021 bytes here, inside Temporal's limit for a value.
    const run = await createRun(h.api, h.seed);
    const tool = `${'\u{1F600}'.repeat(255)}\n`;
    const answer = await expectStatus(
      toolCallUntilAnswered(h.api, run, 'c1', { tool, arguments: {} }),
      200,
    );
    assert.equal(answer.decision, 'deny');
    assert.equal(answer.source, 'capability');
  });

  test('no matching rule gives the policy default', async () => {
    const op = { token: h.api.operatorKey };
    const policy = await expectStatus(
      h.api.call('POST', '/v1/policies', {
        ...op,
        body: { ...defaultPolicy, workspace: h.seed.workspace, rules: [], default: 'allow' },
      }),
      201,
    );
    const run = await createRun(h.api, h.seed, { policy_id: policy.id });
    const answer = await expectStatus(
      toolCallUntilAnswered(h.api, run, 'c1', { tool: 'Bash', arguments: { command: 'ls' } }),
      200,
    );
    assert.equal(answer.decision, 'allow');
    assert.equal(answer.rule_id, undefined);
    assert.match(answer.reason, /policy default/);
  });

  test('GET returns the recorded state of a call; an unknown call is 404', async () => {
    const run = await createRun(h.api, h.seed);
    await expectStatus(
      toolCallUntilAnswered(h.api, run, 'c1', { tool: 'Read', arguments: { file_path: 'a' } }),
      200,
    );
    const state = await expectStatus(
      h.api.call('GET', `/v1/sessions/${run.session_id}/tool-calls/c1?wait=1`, {
        token: run.session_token,
      }),
      200,
    );
    assert.equal(state.decision, 'allow');
    await expectStatus(
      h.api.call('GET', `/v1/sessions/${run.session_id}/tool-calls/nope`, {
        token: run.session_token,
      }),
      404,
    );
  });
});

describe('retries are idempotent', () => {
  test('the same ids and body give the same answer and one workflow', async () => {
    const run = await createRun(h.api, h.seed);
    const body = { tool: 'Read', arguments: { file_path: 'a' } };
    const answers = await Promise.all(
      [1, 2, 3, 4, 5].map(() => toolCall(h.api, run, 'same', body)),
    );
    for (const answer of answers) assert.equal(answer.status, 200);
    const first = JSON.stringify(answers[0]!.body);
    for (const answer of answers) assert.equal(JSON.stringify(answer.body), first);
    const again = await expectStatus(toolCallUntilAnswered(h.api, run, 'same', body), 200);
    assert.equal(JSON.stringify(again), first);

    const workflowId = gateWorkflowId(asSessionId(run.session_id), asToolCallId('same'));
    const runs: string[] = [];
    for await (const execution of temporal.workflow.list({
      query: `WorkflowId = '${workflowId}'`,
    })) {
      runs.push(execution.runId);
    }
    assert.equal(runs.length, 1);
    const rows = await h.db.query(
      'select count(*)::int as n from tool_calls where session_id = $1',
      [run.session_id],
    );
    assert.equal(rows.rows[0].n, 1);
  });

  test('the same ids with a different body give 409 and change nothing', async () => {
    const run = await createRun(h.api, h.seed);
    await expectStatus(
      toolCallUntilAnswered(h.api, run, 'c1', { tool: 'Read', arguments: { file_path: 'a' } }),
      200,
    );
    const conflict = await toolCall(h.api, run, 'c1', {
      tool: 'Read',
      arguments: { file_path: 'b' },
    });
    assert.equal(conflict.status, 409);
    assert.equal(conflict.headers.get('content-type'), 'application/problem+json; charset=utf-8');
    const state = await expectStatus(
      h.api.call('GET', `/v1/sessions/${run.session_id}/tool-calls/c1`, {
        token: run.session_token,
      }),
      200,
    );
    assert.equal(state.decision, 'allow');
  });
});

describe('a run freezes its policy version', () => {
  test('a policy edit after run creation changes nothing for that run; a new run gets the new version', async () => {
    const op = { token: h.api.operatorKey };
    const policy = await expectStatus(
      h.api.call('POST', '/v1/policies', {
        ...op,
        body: { ...defaultPolicy, workspace: h.seed.workspace },
      }),
      201,
    );
    const before = await createRun(h.api, h.seed, { policy_id: policy.id });
    assert.equal(before.policy_version, 1);
    const edited = await expectStatus(
      h.api.call('PUT', `/v1/policies/${policy.id}`, {
        ...op,
        body: {
          ...defaultPolicy,
          workspace: h.seed.workspace,
          rules: [{ id: 'nothing', match: {}, verdict: 'deny' }],
        },
      }),
      200,
    );
    assert.equal(edited.version, 2);
    const old = await expectStatus(
      toolCallUntilAnswered(h.api, before, 'c1', { tool: 'Read', arguments: { file_path: 'a' } }),
      200,
    );
    assert.equal(old.decision, 'allow');
    const later = await createRun(h.api, h.seed, { policy_id: policy.id });
    assert.equal(later.policy_version, 2);
    const fresh = await expectStatus(
      toolCallUntilAnswered(h.api, later, 'c1', { tool: 'Read', arguments: { file_path: 'a' } }),
      200,
    );
    assert.equal(fresh.decision, 'deny');
    assert.equal(fresh.rule_id, 'nothing');
    const v1 = await expectStatus(
      h.api.call('GET', `/v1/policies/${policy.id}/versions/1`, op),
      200,
    );
    assert.equal(v1.rules[0].id, 'reads');
  });
});
