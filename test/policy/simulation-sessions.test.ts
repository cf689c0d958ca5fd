/**
 * A simulation that names sessions reads only those of the policy's own runs: another policy's,
 * another workspace's or a made-up session's histories are never fetched from Temporal, nor
 * opened, not even to be skipped.
 */
import assert from 'node:assert/strict';
import { afterAll, test } from 'vitest';
import { simulatePolicy, type RecordedCalls } from '../../src/application/simulate-policy.js';
import { SimulationThreads } from '../../src/application/simulation-thread.js';
import type { RecordedWindow } from '../../src/temporal/recorded-calls.js';
import { useHarness } from '../support/harness.js';
import { createRun, seedWorkspace } from '../support/seed.js';

const h = useHarness();

/** What the stub gives for any window: no recorded call. */
const noHistory: AsyncIterable<never> = {
  [Symbol.asyncIterator]: () => ({
    next: () => Promise.resolve({ done: true, value: undefined as never }),
  }),
};
const threads = new SimulationThreads(1);
afterAll(() => threads.close());

test("the sessions a simulation names are narrowed to the policy's own runs before Temporal is asked", async () => {
  const own = await createRun(h.api, h.seed);
  const other = await seedWorkspace(h.api);
  const foreign = await createRun(h.api, other);
  const asked: RecordedWindow[] = [];
  const recorded: RecordedCalls = (window) => {
    asked.push(window);
    return noHistory;
  };
  const simulate = (sessions: string[]) =>
    simulatePolicy(
      h.db,
      recorded,
      {
        policy_id: h.seed.policyId,
        version: 1,
        window: { since: new Date(Date.now() - 60_000), until: new Date(), sessions },
        limit: 10,
      },
      {},
      { deadlineMs: 30_000, threads },
    );

  await simulate([foreign.session_id, own.session_id, 'made-up-session']);
  assert.deepEqual(
    asked.map((w) => w.sessions),
    [[own.session_id]],
  );

  asked.length = 0;
  const none = await simulate([foreign.session_id]);
  assert.deepEqual(asked, [], 'no session of the policy: Temporal is not asked');
  assert.equal(none.evaluated, 0);
});
