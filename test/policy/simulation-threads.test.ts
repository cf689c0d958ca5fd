/**
 * The simulation threads of an API process: a thread whose simulation ended on its own is kept
 * for the next one, holding nothing of the one before; one stopped, or left with a verdict in
 * flight, is never used again. Real worker threads; no service.
 */
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, test } from 'vitest';
import {
  SimulationThreads,
  ThreadStoppedError,
  type CandidateThread,
} from '../../src/application/simulation-thread.js';
import { UnavailableError } from '../../src/domain/errors.js';
import type { PolicyBody } from '../../src/domain/policy/policy.js';
import type { RecordedCall, SimulatedRun } from '../../src/domain/policy/simulation.js';
import type { FrozenTool } from '../../src/domain/tools/tools.js';

const bash: FrozenTool = {
  name: 'Bash',
  description: '',
  input_schema: { type: 'object' },
  effect: 'write',
  digest: 'd-bash',
  class: 'sandbox',
  origin: { kind: 'bundle', bundle_id: 'b' },
  binding: null,
  callable: true,
};
const run = (autonomy: SimulatedRun['autonomy']): SimulatedRun => ({
  autonomy,
  tools: new Map([['Bash', bash]]),
});

const policy = (verdict: 'allow' | 'require_approval'): PolicyBody => ({
  workspace: '00000000-0000-4000-8000-000000000000',
  name: 'candidate',
  rules: [{ id: `bash-${verdict}`, match: { tool: 'Bash' }, verdict }],
  default: 'deny',
  autonomous_fallback: 'deny',
  approval: { timeout_s: 60, on_timeout: 'deny' },
});

const bashCall = (runId: string): RecordedCall => ({
  session_id: 's',
  tool_call_id: `call-${runId}`,
  run_id: runId,
  tool: 'Bash',
  arguments: { command: 'ls' },
  recorded: { decision: 'allow', asked: false },
});

const threads = new SimulationThreads(1);
afterAll(() => threads.close());

test('a thread whose simulation ended is kept for the next, with that one’s candidate and runs only', async () => {
  let first: CandidateThread | undefined;
  const asked = await threads.with(policy('require_approval'), (thread) => {
    first = thread;
    return thread.verdict(bashCall('r1'), run('supervised'));
  });
  assert.equal(asked.decision, 'ask');
  assert.equal(threads.waiting, 1, 'kept for the next simulation');

  await threads.with(policy('require_approval'), async (thread) => {
    assert.equal(thread, first, 'the kept thread takes the next simulation');
    // The same run id, now autonomous: the run sent for the simulation before is not used.
    const verdict = await thread.verdict(bashCall('r1'), run('autonomous'));
    assert.equal(verdict.decision, 'deny');
  });
  await threads.with(policy('allow'), async (thread) => {
    assert.equal(thread, first);
    const verdict = await thread.verdict(bashCall('r1'), run('supervised'));
    assert.deepEqual([verdict.decision, verdict.rule_id], ['allow', 'bash-allow']);
  });
});

test('a thread stopped (its deadline), or left with a verdict in flight, is never used again', async () => {
  let stopped: CandidateThread | undefined;
  await threads.with(policy('allow'), async (thread) => {
    stopped = thread;
    await thread.stop();
  });
  assert.equal(threads.waiting, 0);
  await assert.rejects(stopped!.verdict(bashCall('r'), run('supervised')), ThreadStoppedError);

  let abandoned: CandidateThread | undefined;
  await assert.rejects(
    threads.with(policy('allow'), (thread) => {
      abandoned = thread;
      thread.verdict(bashCall('r'), run('supervised')).catch(() => undefined);
      throw new Error('the simulation failed while a verdict was on its way');
    }),
    /on its way/,
  );
  assert.equal(threads.waiting, 0);
  await threads.with(policy('allow'), (thread) => {
    assert.notEqual(thread, abandoned, 'a new thread');
    assert.notEqual(thread, stopped);
    return Promise.resolve();
  });
});

test('a kept thread ends once unused for its time, and all of them when the process closes', async () => {
  const briefly = new SimulationThreads(2, 100);
  await briefly.with(policy('allow'), () => Promise.resolve());
  assert.equal(briefly.waiting, 1);
  await sleep(400);
  assert.equal(briefly.waiting, 0, 'ended after 100 ms unused');

  await briefly.with(policy('allow'), () => Promise.resolve());
  assert.equal(briefly.waiting, 1);
  await briefly.close();
  assert.equal(briefly.waiting, 0);
  await assert.rejects(
    briefly.with(policy('allow'), () => Promise.resolve()),
    UnavailableError,
  );
});
