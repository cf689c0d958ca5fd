import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, test } from 'vitest';
import pg from 'pg';
import type { ManagedProcess } from '../../tools/devstack/child-process.js';
import { startTestApi, type TestApi } from '../support/api.js';
import { startWorkerProcess } from '../support/worker-processes.js';
import { testConfig } from '../support/env.js';
import { payloadsOf, storedHistory } from '../support/temporal.js';
import { asSessionId, asToolCallId, gateWorkflowId } from '../../src/domain/gate/ids.js';
import {
  createNoteTool,
  searchNotesTool,
  startRugpullUpstream,
  type RugpullUpstream,
} from '../support/rugpull-upstream.js';
import {
  createRun,
  defaultPolicy,
  expectStatus,
  seedWorkspace,
  toolCallUntilAnswered,
} from '../support/seed.js';

const canary = (what: string) => `canary-${what}-${randomBytes(12).toString('hex')}`;
const argCanary = canary('argument');
const resultCanary = canary('result');
const credentialCanary = canary('credential');

const taskQueue = `canary-${randomUUID()}`;
const apiLog: string[] = [];
const workerLog: string[] = [];
let api: TestApi;
let worker: ManagedProcess;
let upstream: RugpullUpstream;
let db: pg.Pool;

beforeAll(async () => {
  api = await startTestApi(
    { temporal: { taskQueue }, approvalRecheckS: 1 },
    { logger: { level: 'trace', stream: { write: (line: string) => void apiLog.push(line) } } },
  );
  worker = await startWorkerProcess(
    'canary-worker',
    { GATE_TASK_QUEUE: taskQueue },
    { output: workerLog },
  );
  // search_notes refuses unknown argument keys, so a key can fail the schema stage.
  const strictSearch = {
    ...searchNotesTool,
    inputSchema: { ...searchNotesTool.inputSchema, additionalProperties: false },
  };
  upstream = await startRugpullUpstream({
    token: credentialCanary,
    tools: [strictSearch, createNoteTool],
  });
  db = new pg.Pool({ connectionString: testConfig().databaseUrl });
});
afterAll(async () => {
  await worker.stop();
  await upstream.close();
  await api.close();
  await db.end();
});

test('canaries in tool arguments, tool results and a credential appear nowhere in the events table, the event API or the logs', async () => {
  const policy = {
    ...defaultPolicy,
    rules: [
      { id: 'reads', match: { tool: 'Read' }, verdict: 'allow' },
      { id: 'no-bash', match: { tool: 'Bash' }, verdict: 'deny' },
      { id: 'grep-asks', match: { tool: 'Grep' }, verdict: 'require_approval' },
      { id: 'notes', match: { tool: 'mcp__notes__*' }, verdict: 'allow' },
    ],
  };
  const seed = await seedWorkspace(api, policy);
  const connection = await expectStatus(
    api.call('POST', '/v1/connections', {
      token: api.operatorKey,
      body: {
        workspace: seed.workspace,
        name: 'notes',
        kind: 'org',
        url: upstream.url,
        credential: { type: 'bearer', token: credentialCanary },
      },
    }),
    201,
  );
  const run = await createRun(api, seed, {
    tools: { bundles: [seed.bundleId], connections: [{ id: connection.id }] },
  });

  const allowed = await expectStatus(
    toolCallUntilAnswered(api, run, 'allowed', {
      tool: 'Read',
      arguments: { file_path: argCanary },
    }),
    200,
  );
  assert.equal(allowed.decision, 'allow');
  const denied = await expectStatus(
    toolCallUntilAnswered(api, run, 'denied', { tool: 'Bash', arguments: { command: argCanary } }),
    200,
  );
  assert.equal(denied.source, 'policy');
  const badSchema = await expectStatus(
    toolCallUntilAnswered(api, run, 'bad-schema', {
      tool: 'Read',
      arguments: { file_path: 7, extra: argCanary },
    }),
    200,
  );
  assert.equal(badSchema.source, 'schema');
  // A key of the arguments is theirs too: the runner sees the failing path, the ledger does not.
  const badKey = await expectStatus(
    toolCallUntilAnswered(api, run, 'bad-key', {
      tool: 'mcp__notes__search_notes',
      arguments: { query: 'q', [argCanary]: 1 },
    }),
    200,
  );
  assert.equal(badKey.source, 'schema');
  assert.match(badKey.reason, new RegExp(argCanary));
  await expectStatus(
    toolCallUntilAnswered(api, run, 'approved', {
      tool: 'Grep',
      arguments: { pattern: argCanary },
    }),
    202,
  );
  await expectStatus(
    api.call('POST', `/v1/approvals/${run.session_id}/approved/decision`, {
      token: seed.admin.token,
      body: { decision: 'approve' },
    }),
    200,
  );
  const brokered = await expectStatus(
    toolCallUntilAnswered(api, run, 'brokered', {
      tool: 'mcp__notes__create_note',
      arguments: { title: argCanary, body: resultCanary },
      execute: true,
    }),
    200,
  );
  assert.equal(brokered.decision, 'allow');
  assert.equal(brokered.result.isError, undefined);
  assert.match(JSON.stringify(brokered.result), new RegExp(resultCanary));
  assert.equal(upstream.calls.at(-1)?.authorization, `Bearer ${credentialCanary}`);

  const events = await db.query<{ type: string; text: string }>(
    'select type, row_to_json(e)::text as text from ledger_events e where stream_id = $1 order by seq',
    [run.session_id],
  );
  assert.deepEqual(
    events.rows.map((e) => e.type).filter((t) => t === 'tool.brokered'),
    ['tool.brokered'],
  );
  const page = await api.call('GET', `/v1/sessions/${run.session_id}/events?limit=1000`, {
    token: run.session_token,
  });
  const operatorPage = await api.call('GET', `/v1/sessions/${run.session_id}/events?limit=1000`, {
    token: api.operatorKey,
  });
  const places: [string, string][] = [
    ['ledger_events rows', events.rows.map((e) => e.text).join('\n')],
    ['the event API', JSON.stringify(page.body) + JSON.stringify(operatorPage.body)],
    ['the API log', apiLog.join('')],
    ['the worker log', workerLog.join('\n')],
  ];
  for (const secret of [argCanary, resultCanary, credentialCanary]) {
    for (const [where, text] of places)
      assert.equal(text.includes(secret), false, `${secret} leaked into ${where}`);
  }
  // The logs were really captured: they are not empty.
  assert.ok(apiLog.length > 10);

  // Temporal's history of the brokered call, as the server stores it, is ciphertext; the codec
  // endpoint opens it for the operator.
  const history = await storedHistory(
    api.config.temporal,
    gateWorkflowId(asSessionId(run.session_id), asToolCallId('brokered')),
  );
  for (const secret of [argCanary, resultCanary, credentialCanary])
    assert.equal(history.includes(secret), false, `${secret} is plain in Temporal's history`);
  const opened = await expectStatus(
    api.call('POST', '/codec/decode', {
      token: api.operatorKey,
      body: { payloads: payloadsOf(JSON.parse(history)) },
    }),
    200,
  );
  const plain = JSON.stringify(
    opened.payloads.map((p: { data: string }) => Buffer.from(p.data, 'base64').toString()),
  );
  assert.ok(plain.includes(resultCanary), 'the brokered result opens through the codec');
  assert.equal(plain.includes(credentialCanary), false, 'the credential never reaches history');
});
