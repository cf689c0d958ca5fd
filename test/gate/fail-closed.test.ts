import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import type { ManagedProcess } from '../../src/devstack/child-process.js';
import { startNodeProcess } from '../../src/devstack/stack.js';
import { startTestApi, type TestApi } from '../support/api.js';
import {
  createRun,
  defaultPolicy,
  expectStatus,
  seedWorkspace,
  toolCall,
} from '../support/seed.js';

const allowAll = { ...defaultPolicy, rules: [{ id: 'all', match: {}, verdict: 'allow' }] };

/** A worker whose `activity` throws on every attempt, and an API that sends it work. */
function brokenStage(activity: string) {
  const taskQueue = `fail-closed-${activity}-${randomUUID()}`;
  const state = {} as { api: TestApi; worker: ManagedProcess };
  before(async () => {
    state.api = await startTestApi({ taskQueue });
    state.worker = startNodeProcess(
      `worker-${activity}`,
      'src/worker.ts',
      {
        ...process.env,
        GATE_TASK_QUEUE: taskQueue,
        GATE_FAULTS: `stage-fail:${activity}=injected ${activity} failure`,
      },
      true,
    );
  });
  after(async () => {
    await state.worker.stop();
    await state.api.close();
  });
  return state;
}

for (const [activity, source] of [
  ['budget', 'budget'],
  ['capability', 'capability'],
  ['schema', 'schema'],
  ['trustTier', 'trust_tier'],
  ['policy', 'policy'],
] as const) {
  describe(`the ${source} stage fails closed`, () => {
    const state = brokenStage(activity);
    test(`a ${source} stage that cannot answer denies with source=${source}, even under an allow-everything policy`, async () => {
      const seed = await seedWorkspace(state.api, allowAll);
      const run = await createRun(state.api, seed);
      const answer = await expectStatus(
        toolCall(state.api, run, 'c1', { tool: 'Read', arguments: { file_path: 'a' } }),
        200,
      );
      assert.equal(answer.decision, 'deny');
      assert.equal(answer.source, source);
      assert.match(
        answer.reason,
        new RegExp(`the ${source} stage could not decide .*failing closed`),
      );
    });
  });
}
