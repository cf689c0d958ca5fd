/**
 * A brokered call whose every broker attempt fails, on a worker of the file's own that fails the
 * broker activity on every attempt, against a real upstream: the call still ends decided.
 */
import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, test } from 'vitest';
import pg from 'pg';
import type { ManagedProcess } from '../../tools/devstack/child-process.js';
import { startTestApi, type TestApi } from '../support/api.js';
import { testConfig } from '../support/env.js';
import { startRugpullUpstream, type RugpullUpstream } from '../support/rugpull-upstream.js';
import {
  createRun,
  defaultPolicy,
  expectStatus,
  seedWorkspace,
  toolCallUntilAnswered,
} from '../support/seed.js';
import { startWorkerProcess } from '../support/worker-processes.js';

const taskQueue = `broker-failure-${randomUUID()}`;
const token = `upstream-${randomBytes(16).toString('hex')}`;
let api: TestApi;
let worker: ManagedProcess;
let upstream: RugpullUpstream;
let db: pg.Pool;

beforeAll(async () => {
  api = await startTestApi({ temporal: { taskQueue } });
  worker = await startWorkerProcess(
    'broker-failure-worker',
    { GATE_TASK_QUEUE: taskQueue },
    { faults: { fail: { broker: 'injected: the broker cannot run' } } },
  );
  upstream = await startRugpullUpstream({ token });
  db = new pg.Pool({ connectionString: testConfig().databaseUrl });
});
afterAll(async () => {
  await worker.stop();
  await upstream.close();
  await api.close();
  await db.end();
});

test('every broker attempt failing: the call ends decided with an error result, recorded in the ledger, within a bound', async () => {
  const policy = { ...defaultPolicy, rules: [{ id: 'all', match: {}, verdict: 'allow' }] };
  const seed = await seedWorkspace(api, policy);
  const connection = await expectStatus(
    api.call('POST', '/v1/connections', {
      token: api.operatorKey,
      body: {
        workspace: seed.workspace,
        name: 'notes',
        kind: 'org',
        url: upstream.url,
        credential: { type: 'bearer', token },
      },
    }),
    201,
  );
  const run = await createRun(api, seed, {
    tools: { bundles: [], connections: [{ id: connection.id }] },
  });
  const started = Date.now();
  const answer = await expectStatus(
    toolCallUntilAnswered(api, run, 'c1', {
      tool: 'mcp__notes__create_note',
      arguments: { title: 't', body: 'b' },
      execute: true,
    }),
    200,
  );
  // Three attempts with a second and two of backoff: far inside this, nowhere near forever.
  assert.ok(Date.now() - started < 20_000, `took ${Date.now() - started} ms`);
  assert.equal(answer.status, 'decided');
  assert.equal(answer.decision, 'allow');
  assert.equal(answer.result.isError, true);
  // The gate's own sentence of the failure's kind, never the error's text.
  assert.equal(
    answer.result.content[0].text,
    'the call could not be carried out (the broker failed)',
  );
  assert.deepEqual(upstream.calls, []);

  const state = await expectStatus(
    api.call('GET', `/v1/sessions/${run.session_id}/tool-calls/c1`, { token: run.session_token }),
    200,
  );
  assert.deepEqual(state, answer, 'the record says what the runner was told, not "evaluating"');
  const { rows } = await db.query<{ data: Record<string, unknown> }>(
    `select data from ledger_events where stream_id = $1 and type = 'tool.brokered'`,
    [run.session_id],
  );
  assert.equal(rows.length, 1);
  assert.equal(rows[0]!.data.outcome, 'failed');
  assert.equal(rows[0]!.data.is_error, true);
  assert.equal(rows[0]!.data.latency_ms, null);
  assert.match(String(rows[0]!.data.result_digest), /^sha256:/);
});
