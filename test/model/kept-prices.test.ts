/**
 * The prices a process keeps: read once per change of the price table or a provider's fallback
 * price (the prices' epoch, read with the request's caller), so a request at an unchanged epoch
 * sends no price read; and a change applies to the very next request, whichever process made it.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, test } from 'vitest';
import { bookModelRequest } from '../../src/application/model-access/book-model-request.js';
import { hashToken } from '../../src/application/tokens.js';
import { findModelCallerBySessionTokenHash } from '../../src/store/model-callers.js';
import type { Pool } from '../../src/store/pool.js';
import { startFakeAnthropic, text, type FakeAnthropic } from '../support/fake-anthropic.js';
import { useHarness } from '../support/harness.js';
import { expectStatus } from '../support/seed.js';
import { useStorePool } from '../support/store-pool.js';
import { reservationsOf } from '../budget/support.js';
import {
  createModelRun,
  createProvider,
  gateClient,
  smallRequest,
  testFallbackPrice,
} from './support.js';

const h = useHarness();
const store = useStorePool();
let fake: FakeAnthropic;

beforeAll(async () => {
  fake = await startFakeAnthropic();
  fake.setScript(() => text('ok'));
});
afterAll(async () => {
  await fake.close();
});

const op = () => ({ token: h.api.operatorKey });
/** A model nobody else prices: the table is the whole gate's, and other files run beside. */
const ownModel = () => `claude-kept-${randomUUID().slice(0, 8)}`;
const times = (price: typeof testFallbackPrice, k: number) =>
  Object.fromEntries(
    Object.entries(price).map(([name, usd]) => [name, (Number(usd) * k).toFixed(3)]),
  );

/** The texts of the statements `pool` sends from now on, through `pool.query`. */
function watchQueries(pool: Pool): string[] {
  const sent: string[] = [];
  const query = pool.query.bind(pool) as (...args: unknown[]) => unknown;
  (pool as { query: unknown }).query = (config: unknown, ...rest: unknown[]) => {
    sent.push(typeof config === 'string' ? config : (config as { text: string }).text);
    return query(config, ...rest);
  };
  return sent;
}

describe('prices kept by a process', () => {
  test('through the Anthropic endpoint, each change of the price table or the fallback price books the very next request at the new price', async () => {
    const provider = await createProvider(h.api, h.seed, fake.url);
    const run = await createModelRun(h.api, h.seed, provider.id, 1_000_000);
    const client = gateClient(h.api, run.session_token);
    const model = ownModel();
    const booked = async () => {
      await client.messages.create({ ...smallRequest(100), model } as never);
      const rows = await reservationsOf(h.db, run.session_id);
      return Number(rows.at(-1)!.booked_nanos);
    };
    const atFallback = await booked();
    assert.ok(atFallback > 0);
    assert.equal(await booked(), atFallback, 'the same price twice');

    await expectStatus(
      h.api.call('PUT', `/v1/model-prices/anthropic/${model}`, {
        ...op(),
        body: times(testFallbackPrice, 10),
      }),
      201,
    );
    assert.equal(await booked(), 10 * atFallback, "the operator's price, at once");
    await expectStatus(h.api.call('DELETE', `/v1/model-prices/anthropic/${model}`, op()), 204);
    assert.equal(await booked(), atFallback, 'the fallback again, once the price is removed');
    await expectStatus(
      h.api.call('PUT', `/v1/model-providers/${provider.id}/fallback-price`, {
        ...op(),
        body: times(testFallbackPrice, 2),
      }),
      200,
    );
    assert.equal(await booked(), 2 * atFallback, 'the changed fallback, at once');
  });

  test('a request at the epoch of a price this process read sends no price read; a change moves the epoch, and the next request reads again', async () => {
    const provider = await createProvider(h.api, h.seed, fake.url);
    const run = await createModelRun(h.api, h.seed, provider.id, 1_000_000);
    const model = ownModel();
    const sent = watchQueries(store.pool);
    const book = async (requestId: string) => {
      const caller = await findModelCallerBySessionTokenHash(
        store.pool,
        hashToken(run.session_token),
      );
      assert.ok(caller?.provider);
      sent.length = 0;
      const outcome = await bookModelRequest(store.pool, {
        run: caller.run,
        providerKind: 'anthropic',
        providerId: caller.provider.id,
        model,
        requestId,
        requestDigest: `digest of ${requestId}`,
        via: 'runner',
        worstCase: { inputTokens: 10, outputTokens: 100 },
        priceEpoch: caller.priceEpoch,
      });
      assert.equal(outcome.kind, 'admitted');
      const priceReads = sent.filter((s) => /from model_price(s|_fallbacks)\b/.test(s)).length;
      return { epoch: caller.priceEpoch, priceReads };
    };
    // Other files beside this one change prices too (each provider made sets a fallback price):
    // a booking whose caller found the epoch moved since the last read is made again, until
    // one is at the epoch the process read its price at.
    let attempts = 0;
    const bookAtKeptEpoch = async (keptAt: number) => {
      for (let epoch = keptAt; ;) {
        attempts += 1;
        const booked = await book(`kept-${attempts}`);
        if (booked.epoch === epoch) return booked;
        assert.ok(attempts < 50, 'the prices kept changing');
        epoch = booked.epoch;
      }
    };
    const first = await book('r1');
    assert.equal(first.priceReads, 2, 'the price and the fallback, read');
    const second = await bookAtKeptEpoch(first.epoch);
    assert.equal(second.priceReads, 0);

    await expectStatus(
      h.api.call('PUT', `/v1/model-prices/anthropic/${model}`, {
        ...op(),
        body: times(testFallbackPrice, 3),
      }),
      201,
    );
    const third = await book('r3');
    assert.ok(third.epoch > first.epoch, `epoch ${third.epoch} after ${first.epoch}`);
    assert.equal(third.priceReads, 2, 'read again after the change');
    assert.equal((await bookAtKeptEpoch(third.epoch)).priceReads, 0);
  });
});
