/**
 * The Temporal frontend away under load: a dev server of this file's own (its SQLite file kept)
 * stopped while calls are in flight and approvals pending, and started again. Serial: the load
 * and the restart would slow every file beside it.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, test } from 'node:test';
import type { ManagedProcess } from '../../src/devstack/child-process.js';
import {
  loadStackConfig,
  stackProfile,
  type StackProfile,
} from '../../src/devstack/stack-config.js';
import { startTemporalServer } from '../../src/devstack/temporal-server.js';
import {
  assertEveryRunnerGetsItsDecision,
  assertEveryWorkflowEndsWith,
  decideAll,
  openApprovals,
} from '../approvals/pending-approvals.js';
import { startTestApi, type TestApi } from '../support/api.js';
import {
  assertAnsweredWithinBound,
  assertDecidedOnceAndVerified,
  outageMs,
  quietHostedWorkers,
  readCalls,
  sendAsRunner,
  timed,
  type TimedAnswer,
} from '../support/outage-load.js';
import { seedWorkspace, type Seed } from '../support/seed.js';
import { freeLoopbackPort } from '../support/server-everything.js';
import { useStorePool } from '../support/store-pool.js';
import { startWorkerProcess } from '../support/worker-processes.js';

const db = useStorePool(10);
const binary = process.env.GATE_TEST_TEMPORAL_BIN ?? '';
let folder: string;
let profile: StackProfile;
let server: ManagedProcess;
let api: TestApi;
let worker: ManagedProcess;
let seed: Seed;

before(async () => {
  quietHostedWorkers();
  folder = mkdtempSync(path.join(tmpdir(), 'gate-temporal-outage-'));
  const base = stackProfile(loadStackConfig(), 'test');
  profile = {
    ...base,
    temporal: {
      ...base.temporal,
      port: await freeLoopbackPort(),
      uiPort: await freeLoopbackPort(),
      sqliteFile: path.join(folder, 'temporal.sqlite'),
    },
  };
  server = await startTemporalServer(binary, profile, { quiet: true });
  const address = `${profile.temporal.ip}:${profile.temporal.port}`;
  // The API hosts a worker and starts calls eagerly on it (the default); a worker process polls
  // the same queue.
  [api, worker] = await Promise.all([
    startTestApi({ temporal: { address } }),
    startWorkerProcess('worker-temporal-outage', { TEMPORAL_ADDRESS: address }),
  ]);
  seed = await seedWorkspace(api);
});
after(async () => {
  await worker.stop();
  await api.close();
  await server.stop();
  rmSync(folder, { recursive: true, force: true });
});

test('the Temporal frontend stopped under load and started again: no process exits, every answer a decision or a 503 within 10 s, no call lost, each decided once on its merits, the pending approvals decided', async () => {
  const address = `${profile.temporal.ip}:${profile.temporal.port}`;
  const answers: TimedAnswer[] = [];
  const approvals = await openApprovals(api, 10);
  const calls = await readCalls(api, seed, 50, 'c', answers);
  // Forty calls in flight when the frontend goes, ten more sent while it is away.
  const runners = calls.slice(0, 40).map((call) => sendAsRunner(call));
  await sleep(100);
  await server.stop('SIGTERM', 15_000);
  runners.push(...calls.slice(40).map((call) => sendAsRunner(call)));
  // Approvers decide meanwhile: the row is the truth, the workflows are woken once it is back.
  const expected = await decideAll(
    timed(api, answers),
    approvals.seed.admin.token,
    approvals.calls,
  );
  await sleep(outageMs);
  server = await startTemporalServer(binary, profile, { quiet: true });

  const finals = await Promise.all(runners);
  assert.equal(worker.child.exitCode, null, 'the worker process exited');
  assert.equal(worker.child.signalCode, null, 'the worker process was killed');
  assertAnsweredWithinBound(answers);
  for (const [n, answer] of finals.entries()) {
    assert.equal(answer.status, 200, `${calls[n]!.id}: ${JSON.stringify(answer.body)}`);
    assert.equal(answer.body.decision, 'allow', `${calls[n]!.id}: ${JSON.stringify(answer.body)}`);
  }
  await assertDecidedOnceAndVerified(api, db.pool, calls);
  await assertEveryRunnerGetsItsDecision(api, db.pool, approvals.calls, expected);
  // Every workflow ends, each with the decision its runner got: none lost, none started twice.
  await assertEveryWorkflowEndsWith(
    [...calls, ...approvals.calls],
    [...calls.map(() => 'allow'), ...expected],
    { address },
  );
});
