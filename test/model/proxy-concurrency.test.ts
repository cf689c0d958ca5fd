import assert from 'node:assert/strict';
import { afterAll, beforeAll, describe, test } from 'vitest';
import {
  parseMessagesRequest,
  messagesInputBound,
} from '../../src/domain/budget/messages-request.js';
import { budgetOf, eventsOf, randomInt, reservationsOf, seededRandom } from '../budget/support.js';
import { startFakeAnthropic, text, type FakeAnthropic } from '../support/fake-anthropic.js';
import { useHarness } from '../support/harness.js';
import {
  createModelRun,
  createProvider,
  drain,
  gateClient,
  proxyLimits,
  smallRequest,
} from './support.js';

// Room for 50 requests of one run at once: the budget, not the cap, is what this file looks at.
const h = useHarness({ api: { modelProxy: proxyLimits({ concurrentPerRun: 64 }) } });
let fake: FakeAnthropic;

beforeAll(async () => {
  fake = await startFakeAnthropic();
});
afterAll(async () => {
  await fake.close();
});

const inputBound = (() => {
  const parsed = parseMessagesRequest(Buffer.from(JSON.stringify(smallRequest(1))));
  assert.ok(parsed.ok);
  return messagesInputBound(parsed.request).tokens;
})();

async function until(condition: () => boolean | Promise<boolean>, what: string) {
  const deadline = Date.now() + 20_000;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('concurrent streamed requests on one budget', () => {
  test('50 concurrent streamed requests on a budget that fits exactly 17: 17 reach the upstream, 33 are refused before it, nothing overspends (5 seeded rounds of random sizes)', async () => {
    const provider = await createProvider(h.api, h.seed, fake.url);
    const random = seededRandom(17);
    for (let round = 0; round < 5; round += 1) {
      // Bookings in [smallest, smallest + spread] with 17 * spread < smallest: any 17 fit an
      // allowance in [17 * largest, 18 * smallest), no 18 do, whatever the order.
      const smallest = inputBound + randomInt(random, 500, 5_000);
      const spread = Math.floor(smallest / 20);
      const allowance = randomInt(random, 17 * (smallest + spread), 18 * smallest - 1);
      const booked = Array.from({ length: 50 }, () => smallest + randomInt(random, 0, spread));
      const run = await createModelRun(h.api, h.seed, provider.id, allowance);
      const label = `round ${round}, allowance ${allowance}`;
      // The upstream holds every answer until all refusals are in: no hold is released early.
      let release!: () => void;
      const released = new Promise<void>((resolve) => {
        release = resolve;
      });
      const usage = { input_tokens: 10, output_tokens: 5 };
      fake.setScript(() => ({ ...text('ok'), usage, waitFor: released }));
      const before = fake.messages().length;
      const client = gateClient(h.api, run.session_token);

      const outcomes = booked.map((size) =>
        client.messages
          .create({ ...smallRequest(size - inputBound), stream: true } as never)
          .then(async (stream) => {
            await drain(stream);
            return 'admitted';
          })
          .catch((err: unknown) => {
            const refusal = err as { status?: number; error?: { error?: { type?: string } } };
            assert.equal(refusal.status, 402, label);
            assert.equal(refusal.error?.error?.type, 'billing_error', label);
            return 'refused';
          }),
      );
      let refusals = 0;
      for (const outcome of outcomes)
        void outcome.then((o) => (refusals += o === 'refused' ? 1 : 0));
      await until(() => refusals === 33, `${label}: 33 refusals`);
      await until(() => fake.messages().length - before === 17, `${label}: 17 upstream requests`);
      const held = await budgetOf(h.db, run.run_id);
      assert.ok(held.held_tokens <= allowance, label);
      release();
      const results = await Promise.all(outcomes);

      assert.equal(results.filter((r) => r === 'admitted').length, 17, label);
      assert.equal(fake.messages().length - before, 17, label);
      const budget = await budgetOf(h.db, run.run_id);
      assert.deepEqual(
        budget,
        { max_tokens: allowance, held_tokens: 0, used_tokens: 17 * 15 },
        label,
      );
      const rows = await reservationsOf(h.db, run.session_id);
      assert.equal(rows.filter((r) => r.status === 'reconciled').length, 17, label);
      assert.equal(rows.filter((r) => r.status === 'refused').length, 33, label);
      const admittedBookings = rows
        .filter((r) => r.status === 'reconciled')
        .map((r) => Number(r.booked_tokens));
      assert.ok(admittedBookings.reduce((a, b) => a + b, 0) <= allowance, label);
      assert.equal((await eventsOf(h.db, run.session_id, 'model.reconciled')).length, 17, label);
    }
  });
});
