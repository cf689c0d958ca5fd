import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, test } from 'vitest';
import { expireStaleReservations } from '../../src/store/budget.js';
import { createRun, expectStatus } from '../support/seed.js';
import { admit, boundOf, eventsOf, reportUsage } from './support.js';
import { useHarness } from '../support/harness.js';
import { useStorePool } from '../support/store-pool.js';

const h = useHarness();
const store = useStorePool(5);

/** The canary in every part of the prompt that could leak: texts, tool input, tool definitions. */
function promptWith(canary: string) {
  return {
    system: [{ type: 'text', text: `system ${canary}` }],
    messages: [
      { role: 'user', content: `please ${canary}` },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: `thinking about ${canary}` },
          { type: 'tool_use', id: 'tu1', name: 'Grep', input: { pattern: canary, [canary]: 1 } },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'tu1', content: [{ type: 'text', text: canary }] },
        ],
      },
    ],
    tools: [
      {
        name: 'Grep',
        description: `finds ${canary}`,
        input_schema: { type: 'object', properties: { pattern: { description: canary } } },
      },
    ],
  };
}

describe('the ledger records model requests with counts only', () => {
  test('model.reserved, model.reconciled and model.expired carry counts, and the prompt appears nowhere in ledger_events', async () => {
    const canary = `canary-${randomUUID()}`;
    const input = promptWith(canary);
    const bound = boundOf(input);
    const run = await createRun(h.api, h.seed, { budget: { max_tokens: 100_000 } });
    const body = (requestId: string) => ({
      request_id: requestId,
      model: 'claude-sonnet-4-5',
      max_output_tokens: 512,
      input,
    });
    await expectStatus(admit(h.api, run, body('drained')), 201);
    await expectStatus(
      reportUsage(h.api, run, 'drained', { input_tokens: 40, output_tokens: 60 }),
      200,
    );
    await expectStatus(admit(h.api, run, body('abandoned')), 201);
    await expireStaleReservations(store.pool, { expireAfterMs: 0 });

    const events = (await eventsOf(h.db, run.session_id)).filter((e) =>
      e.type.startsWith('model.'),
    );
    assert.deepEqual(events, [
      {
        type: 'model.reserved',
        data: {
          request_id: 'drained',
          model: 'claude-sonnet-4-5',
          max_output_tokens: 512,
          input_bound_tokens: bound,
          booked_tokens: 512 + bound,
          booked_nanos: bound * 3_750 + 512 * 15_000,
          via: 'runner',
        },
      },
      {
        type: 'model.reconciled',
        data: {
          request_id: 'drained',
          input_tokens: 40,
          output_tokens: 60,
          used_tokens: 100,
          released_tokens: 512 + bound,
          // 40 in at $3 and 60 out at $15 per million tokens.
          cost_nanos: 40 * 3_000 + 60 * 15_000,
          via: 'runner',
        },
      },
      {
        type: 'model.reserved',
        data: {
          request_id: 'abandoned',
          model: 'claude-sonnet-4-5',
          max_output_tokens: 512,
          input_bound_tokens: bound,
          booked_tokens: 512 + bound,
          booked_nanos: bound * 3_750 + 512 * 15_000,
          via: 'runner',
        },
      },
      {
        type: 'model.expired',
        data: {
          request_id: 'abandoned',
          released_tokens: 512 + bound,
          charged_tokens: 512 + bound,
          charged_nanos: bound * 3_750 + 512 * 15_000,
        },
      },
    ]);

    for (const table of ['ledger_events', 'model_reservations', 'model_usage']) {
      const { rows } = await h.db.query(
        `select count(*)::int as n from ${table} t where t::text like '%' || $1 || '%'`,
        [canary],
      );
      assert.equal(rows[0].n, 0, `the canary is in ${table}`);
    }
  });
});
