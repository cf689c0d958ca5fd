import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type pg from 'pg';
import { afterAll, beforeAll, describe, test } from 'vitest';
import {
  parseMessagesRequest,
  messagesInputBound,
} from '../../src/domain/budget/messages-request.js';
import { budgetOf, eventsOf, reservationsOf } from '../budget/support.js';
import { startFakeAnthropic, text, type FakeAnthropic } from '../support/fake-anthropic.js';
import { useHarness } from '../support/harness.js';
import { expectStatus } from '../support/seed.js';
import { createModelRun, createProvider, gateClient, smallRequest } from './support.js';

const h = useHarness();
let fake: FakeAnthropic;

beforeAll(async () => {
  fake = await startFakeAnthropic();
});
afterAll(async () => {
  await fake.close();
});

function boundOfBody(body: unknown): number {
  const parsed = parseMessagesRequest(Buffer.from(JSON.stringify(body)));
  assert.ok(parsed.ok);
  return messagesInputBound(parsed.request).tokens;
}

describe('the official SDK through the gate, the session token as its API key', () => {
  test('a JSON and a streamed request work; the upstream sees the provider key, never the session token; the budget moves by exactly the reported usage, cache tokens included', async () => {
    const provider = await createProvider(h.api, h.seed, fake.url);
    const run = await createModelRun(h.api, h.seed, provider.id, 1_000_000);
    const canary = `canary-${randomUUID()}`;
    const usage = {
      input_tokens: 120,
      output_tokens: 45,
      cache_creation_input_tokens: 30,
      cache_read_input_tokens: 7,
    };
    fake.setScript(() => ({ ...text(`hello ${canary}`), usage }));
    const client = gateClient(h.api, run.session_token);
    const before = fake.messages().length;

    const answer = await client.messages.create(
      smallRequest(200, { messages: [{ role: 'user', content: `say ${canary}` }] }) as never,
      { headers: { 'anthropic-beta': 'test-beta-2026-01-01' } },
    );
    assert.equal((answer.content[0] as { text: string }).text, `hello ${canary}`);
    const stream = client.messages.stream(
      smallRequest(300, { messages: [{ role: 'user', content: 'stream it' }] }) as never,
    );
    const streamed = await stream.finalMessage();
    assert.equal((streamed.content[0] as { text: string }).text, `hello ${canary}`);
    assert.equal(streamed.usage.output_tokens, 45);

    const seen = fake.messages().slice(before);
    assert.equal(seen.length, 2);
    for (const request of seen) {
      assert.equal(request.headers['x-api-key'], provider.key);
      assert.equal(request.headers.authorization, undefined);
      const everything = JSON.stringify(request.headers) + request.raw.toString('utf8');
      assert.ok(!everything.includes(run.session_token), 'the session token reached the upstream');
      assert.ok(request.headers['anthropic-version'], 'anthropic-version passed through');
    }
    assert.equal(seen[0]!.headers['anthropic-beta'], 'test-beta-2026-01-01');
    assert.equal(seen[1]!.body.stream, true);

    const each =
      usage.input_tokens +
      usage.cache_creation_input_tokens +
      usage.cache_read_input_tokens +
      usage.output_tokens;
    assert.deepEqual(await budgetOf(h.db, run.run_id), {
      max_tokens: 1_000_000,
      held_tokens: 0,
      used_tokens: 2 * each,
    });
    const rows = await reservationsOf(h.db, run.session_id);
    assert.deepEqual(rows.map((r) => [r.status, r.max_output_tokens]).sort(), [
      ['reconciled', 200],
      ['reconciled', 300],
    ]);
    const reserved = await eventsOf(h.db, run.session_id, 'model.reserved');
    assert.deepEqual(
      reserved.map((e) => e.data.via),
      ['proxy', 'proxy'],
    );
    const reconciled = await eventsOf(h.db, run.session_id, 'model.reconciled');
    assert.equal(reconciled.length, 2);
    for (const event of reconciled) {
      assert.equal(event.data.via, 'proxy');
      assert.equal(event.data.outcome, 'completed');
      assert.equal(event.data.upstream_status, 200);
      assert.match(String(event.data.upstream_request_id), /^req_/);
      assert.equal(typeof event.data.latency_ms, 'number');
      assert.equal(event.data.input_tokens, 157);
      assert.equal(event.data.cache_read_input_tokens, 7);
      assert.equal(event.data.used_tokens, each);
    }
    const ledger = JSON.stringify(await eventsOf(h.db, run.session_id));
    assert.ok(!ledger.includes(canary), 'a prompt or an answer reached the ledger');
    assert.ok(!ledger.includes(provider.key), 'the provider key reached the ledger');
  });

  test('the request admitted is the request forwarded: the same bytes, booked as max_tokens plus the bound of those bytes', async () => {
    const provider = await createProvider(h.api, h.seed, fake.url);
    const run = await createModelRun(h.api, h.seed, provider.id, 1_000_000);
    fake.setScript(() => text('ok'));
    // Spacing and key order an SDK would not produce: forwarded as sent, not re-serialised.
    const body = `{ "messages" : [ {"content":"x\\u00e9y","role":"user"} ],\n"max_tokens":77, "model":"claude-haiku-4-5" }`;
    const before = fake.messages().length;
    const response = await fetch(`${h.api.url}/anthropic/v1/messages?beta=true`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-api-key': run.session_token,
        'anthropic-version': '2023-06-01',
      },
      body,
    });
    assert.equal(response.status, 200, await response.clone().text());
    await response.text();
    const [forwarded] = fake.messages().slice(before);
    assert.equal(forwarded!.raw.toString('utf8'), body);
    const [reservation] = await reservationsOf(h.db, run.session_id);
    assert.equal(reservation.max_output_tokens, 77);
    assert.equal(reservation.input_bound_tokens, boundOfBody(JSON.parse(body)));
    assert.equal(reservation.booked_tokens, 77 + boundOfBody(JSON.parse(body)));
  });

  test("a stream's end reaches the client only once the request is settled, so its next turn is admitted against what this one recorded", async () => {
    const provider = await createProvider(h.api, h.seed, fake.url);
    const run = await createModelRun(h.api, h.seed, provider.id, 1_000_000);
    fake.setScript(() => text('settled first'));
    const stream = await gateClient(h.api, run.session_token).messages.create({
      ...smallRequest(150),
      stream: true,
    } as never);
    const statusAt: Record<string, string[]> = {};
    for await (const event of stream as unknown as AsyncIterable<{ type: string }>) {
      if (event.type === 'message_delta' || event.type === 'message_stop') {
        const rows = await reservationsOf(h.db, run.session_id);
        statusAt[event.type] = rows.map((r) => String(r.status));
      }
    }
    assert.deepEqual(statusAt, { message_delta: ['reconciled'], message_stop: ['reconciled'] });
  });

  test('a stream that arrives whole is passed on up to its final usage at once; only its end waits for the settlement', async () => {
    const provider = await createProvider(h.api, h.seed, fake.url);
    const run = await createModelRun(h.api, h.seed, provider.id, 1_000_000);
    // Once the request is admitted, the settlement that follows its answer waits on this lock.
    let locked: pg.PoolClient | undefined;
    const lockBudget = async () => {
      locked = await h.db.connect();
      await locked.query('begin');
      await locked.query('select 1 from run_budgets where run_id = $1 for update', [run.run_id]);
    };
    const release = async () => {
      if (!locked) return;
      await locked.query('rollback');
      locked.release();
      locked = undefined;
    };
    fake.setScript(() => ({ ...text('head first'), whole: true, onArrival: lockBudget }));
    try {
      const response = await fetch(`${h.api.url}/anthropic/v1/messages`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'x-api-key': run.session_token,
          'anthropic-version': '2023-06-01',
        },
        body: JSON.stringify({ ...smallRequest(50), stream: true }),
      });
      assert.equal(response.status, 200);
      const reader = response.body!.getReader();
      let seen = '';
      while (!seen.includes('event: content_block_stop')) {
        const { value, done } = await reader.read();
        assert.equal(done, false, `the stream ended early: ${seen}`);
        seen += Buffer.from(value).toString('utf8');
      }
      assert.match(seen, /head first/);
      // The settlement is held, so the rest has not come: the end waits for it.
      await sleep(300);
      assert.doesNotMatch(seen, /message_delta|message_stop/);
      assert.deepEqual(
        (await reservationsOf(h.db, run.session_id)).map((r) => r.status),
        ['held'],
      );
      await release();
      for (let next = await reader.read(); !next.done; next = await reader.read())
        seen += Buffer.from(next.value).toString('utf8');
      assert.match(seen, /event: message_delta[\s\S]*event: message_stop/);
      assert.deepEqual(
        (await reservationsOf(h.db, run.session_id)).map((r) => r.status),
        ['reconciled'],
      );
    } finally {
      await release();
    }
  });

  test('count_tokens passes through with the provider key and books nothing', async () => {
    const provider = await createProvider(h.api, h.seed, fake.url);
    const run = await createModelRun(h.api, h.seed, provider.id, 100_000);
    const counted = await gateClient(h.api, run.session_token).messages.countTokens({
      model: 'claude-fake-1',
      messages: [{ role: 'user', content: 'count me' }],
    });
    assert.equal(typeof counted.input_tokens, 'number');
    const last = fake.requests[fake.requests.length - 1]!;
    assert.equal(last.path, '/v1/messages/count_tokens');
    assert.equal(last.headers['x-api-key'], provider.key);
    assert.equal((await reservationsOf(h.db, run.session_id)).length, 0);
    const view = await expectStatus(
      h.api.call('GET', `/v1/runs/${run.run_id}`, { token: run.session_token }),
      200,
    );
    assert.deepEqual(view.budget, {
      max_tokens: 100_000,
      held_tokens: 0,
      used_tokens: 0,
      spent_usd: '0',
      held_usd: '0',
    });
  });
});
