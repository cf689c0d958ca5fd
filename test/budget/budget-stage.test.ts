import assert from 'node:assert/strict';
import { describe, test } from 'vitest';
import { budgetStage } from '../../src/activities/budget.js';
import { asRunId, asSessionId, asToolCallId } from '../../src/domain/gate/ids.js';
import type { GateRequest } from '../../src/domain/gate/vocabulary.js';
import {
  createRun,
  expectStatus,
  type CreatedRun,
  toolCallUntilAnswered,
} from '../support/seed.js';
import { admit, boundOf, eventsOf, modelInput, reportUsage } from './support.js';
import { useHarness } from '../support/harness.js';
import { useStorePool } from '../support/store-pool.js';

const h = useHarness();
const store = useStorePool(5);

const input = modelInput();
const inputBound = boundOf(input);
const allowance = 10_000;

/** The stage reads only the run; the rest of the request (still growing) does not matter here. */
function gateRequest(run: CreatedRun): GateRequest {
  return {
    run_id: asRunId(run.run_id),
    session_id: asSessionId(run.session_id),
    tool_call_id: asToolCallId('c1'),
    tool: 'Read',
    arguments: { file_path: 'a' },
    execute: false,
  };
}

/** Books the whole allowance in one hold: used + held = max. */
async function exhaust(run: CreatedRun, requestId = 'all') {
  await expectStatus(
    admit(h.api, run, {
      request_id: requestId,
      model: 'claude-opus-4-1',
      max_output_tokens: allowance - inputBound,
      input,
    }),
    201,
  );
}

describe('stage 1: budget', () => {
  test('the budget stage passes a run with allowance left and denies one whose allowance is spent or held', async () => {
    const budget = budgetStage(store.pool);
    const run = await createRun(h.api, h.seed, { budget: { max_tokens: allowance } });
    assert.deepEqual(await budget(gateRequest(run)), { outcome: 'pass' });

    await exhaust(run);
    assert.deepEqual(await budget(gateRequest(run)), {
      outcome: 'deny',
      source: 'budget',
      reason: "the run's token budget is spent: 0 used and 10000 held of 10000",
    });

    // Real usage below the booking frees the rest: the run may go on.
    await expectStatus(
      reportUsage(h.api, run, 'all', { input_tokens: 100, output_tokens: 900 }),
      200,
    );
    assert.deepEqual(await budget(gateRequest(run)), { outcome: 'pass' });

    // Usage reported past the allowance counts in full, and the run is spent.
    await expectStatus(
      admit(h.api, run, {
        request_id: 'more',
        model: 'claude-opus-4-1',
        max_output_tokens: 1_000,
        input,
      }),
      201,
    );
    await expectStatus(
      reportUsage(h.api, run, 'more', { input_tokens: 8_000, output_tokens: 2_000 }),
      200,
    );
    assert.deepEqual(await budget(gateRequest(run)), {
      outcome: 'deny',
      source: 'budget',
      reason: "the run's token budget is spent: 11000 used and 0 held of 10000",
    });
  });

  test('a tool call on an exhausted run is denied with source=budget, and no later stage runs', async () => {
    const run = await createRun(h.api, h.seed, { budget: { max_tokens: allowance } });
    await exhaust(run);
    const answer = await expectStatus(
      toolCallUntilAnswered(h.api, run, 'c1', { tool: 'Read', arguments: { file_path: 'a' } }),
      200,
    );
    assert.equal(answer.decision, 'deny');
    assert.equal(answer.source, 'budget');
    const decisions = await eventsOf(h.db, run.session_id, 'tool.decision');
    assert.equal(decisions.length, 1);
    assert.equal(decisions[0]!.data.stage, 'budget');
    assert.equal(decisions[0]!.data.verdict, null);
    // A tool outside the frozen set would be a capability deny: budget comes first.
    const outside = await expectStatus(
      toolCallUntilAnswered(h.api, run, 'c2', { tool: 'Nope', arguments: {} }),
      200,
    );
    assert.equal(outside.source, 'budget');
  });
});
