/**
 * Budgets in money: the price table kept through the API, each exchange's cost recorded as the
 * table applied to the upstream's reported usage, and budgets at the levels above a run.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, test } from 'vitest';
import { costOf, defaultPrices, formatUsd } from '../../src/domain/budget/pricing.js';
import { startFakeAnthropic, text, type FakeAnthropic } from '../support/fake-anthropic.js';
import { useHarness } from '../support/harness.js';
import { createRun, expectStatus, toolCallUntilAnswered } from '../support/seed.js';
import {
  createModelRun,
  createProvider,
  drain,
  gateClient,
  postMessages,
  smallRequest,
} from '../model/support.js';
import { eventsOf, usageOf } from './support.js';

const h = useHarness();
let fake: FakeAnthropic;

beforeAll(async () => {
  fake = await startFakeAnthropic();
});
afterAll(async () => {
  await fake.close();
});

const op = () => ({ token: h.api.operatorKey });
const sonnet = defaultPrices.prices.find((p) => p.model === 'claude-sonnet-4-5')!.price;

function errorPaths(body: { errors?: { path: string }[] }): string[] {
  return (body.errors ?? []).map((e) => e.path);
}

describe('the price table, kept by the operator', () => {
  test('the shipped defaults are listed with their date and source; an operator price replaces one, and removing it brings the default back', async () => {
    const model = `claude-sonnet-4-5`;
    const listed = await expectStatus(h.api.call('GET', '/v1/model-prices', op()), 200);
    assert.equal(listed.unit, 'USD per million tokens');
    assert.match(listed.defaults.anthropic.url, /^https:\/\/docs\.anthropic\.com\//);
    assert.match(listed.defaults.openai.url, /^https:\/\/platform\.openai\.com\//);
    const shipped = listed.prices.find(
      (p: { provider: string; model: string }) => p.provider === 'anthropic' && p.model === model,
    );
    assert.deepEqual(
      { ...shipped, updated_at: undefined },
      {
        provider: 'anthropic',
        model,
        source: 'default',
        input: '3',
        output: '15',
        cache_write: '3.75',
        cache_read: '0.3',
        long_context: [
          {
            above_input_tokens: 200_000,
            input: '6',
            output: '22.5',
            cache_write: '7.5',
            cache_read: '0.6',
          },
        ],
        updated_at: undefined,
      },
    );

    const own = `claude-own-${randomUUID().slice(0, 8)}`;
    const body = { input: '2', output: '8', cache_write: '2.5', cache_read: '0.2' };
    const set = await h.api.call('PUT', `/v1/model-prices/anthropic/${own}`, { ...op(), body });
    assert.equal(set.status, 201, JSON.stringify(set.body));
    assert.equal(set.body.source, 'operator');
    const again = await h.api.call('PUT', `/v1/model-prices/anthropic/${own}`, {
      ...op(),
      body: { ...body, output: '9' },
    });
    assert.equal(again.status, 200);
    assert.equal(again.body.output, '9');
    await expectStatus(h.api.call('DELETE', `/v1/model-prices/anthropic/${own}`, op()), 204);
    assert.equal(
      (await h.api.call('DELETE', `/v1/model-prices/anthropic/${own}`, op())).status,
      404,
    );
  });

  test('bad prices are a 400 naming the field, nothing written; only the operator sets prices', async () => {
    const model = `claude-bad-${randomUUID().slice(0, 8)}`;
    const good = { input: '1', output: '1', cache_write: '1', cache_read: '1' };
    const cases: [string, unknown, string][] = [
      [`/v1/model-prices/anthropic/${model}`, { ...good, input: '1.0001' }, 'body.input'],
      [`/v1/model-prices/anthropic/${model}`, { ...good, output: -1 }, 'body.output'],
      [
        `/v1/model-prices/anthropic/${model}`,
        { ...good, cache_read: undefined },
        'body.cache_read',
      ],
      [`/v1/model-prices/anthropic/${model}`, { ...good, surprise: 1 }, 'body'],
      [
        `/v1/model-prices/anthropic/${model}`,
        { ...good, long_context: [{ above_input_tokens: 0, ...good }] },
        'body.long_context[0].above_input_tokens',
      ],
      [
        `/v1/model-prices/anthropic/${model}`,
        {
          ...good,
          long_context: [
            { above_input_tokens: 5, ...good },
            { above_input_tokens: 5, ...good },
          ],
        },
        'body.long_context',
      ],
      [`/v1/model-prices/mistral/${model}`, good, 'path.provider'],
      [`/v1/model-prices/anthropic/bad%20model`, good, 'path.model'],
    ];
    for (const [path, body, field] of cases) {
      const answer = await h.api.call('PUT', path, { ...op(), body });
      assert.equal(answer.status, 400, `${field}: ${JSON.stringify(answer.body)}`);
      assert.match(answer.headers.get('content-type') ?? '', /^application\/problem\+json/);
      assert.ok(
        errorPaths(answer.body).some((p) => p.startsWith(field)),
        `${field}: ${JSON.stringify(answer.body)}`,
      );
    }
    const { rows } = await h.db.query('select 1 from model_prices where model = $1', [model]);
    assert.equal(rows.length, 0);
    const asAdmin = await h.api.call('PUT', `/v1/model-prices/anthropic/${model}`, {
      token: h.seed.admin.token,
      body: good,
    });
    assert.equal(asAdmin.status, 403);
  });
});

describe('an exchange is priced, or refused', () => {
  test('a model without a price is refused before the upstream unless the provider names a fallback, which it is then charged at', async () => {
    const provider = await expectStatus<{ id: string }>(
      h.api.call('POST', '/v1/model-providers', {
        ...op(),
        body: {
          workspace: h.seed.workspace,
          name: `p-${randomUUID().slice(0, 8)}`,
          kind: 'anthropic',
          base_url: fake.url,
          credential: { type: 'api_key', key: `sk-ant-test-${randomUUID()}` },
        },
      }),
      201,
    );
    const run = await createModelRun(h.api, h.seed, provider.id, 100_000);
    const before = fake.messages().length;
    const refused = await postMessages(h.api, JSON.stringify(smallRequest(10)), {
      'x-api-key': run.session_token,
    });
    assert.equal(refused.status, 400, refused.text);
    assert.equal(refused.json.error.type, 'invalid_request_error');
    assert.match(refused.json.error.message, /model "claude-fake-1" has no price/);
    assert.equal(fake.messages().length, before);

    await expectStatus(
      h.api.call('PUT', `/v1/model-providers/${provider.id}/fallback-price`, {
        ...op(),
        body: { input: '7', output: '11', cache_write: '7', cache_read: '7' },
      }),
      200,
    );
    fake.setScript(() => ({ ...text('ok'), usage: { input_tokens: 100, output_tokens: 20 } }));
    const charged = await postMessages(h.api, JSON.stringify(smallRequest(10)), {
      'x-api-key': run.session_token,
    });
    assert.equal(charged.status, 200, charged.text);
    const [usage] = await usageOf(h.db, run.session_id);
    assert.equal(Number(usage.cost_nanos), 100 * 7_000 + 20 * 11_000);

    await expectStatus(
      h.api.call('DELETE', `/v1/model-providers/${provider.id}/fallback-price`, op()),
      204,
    );
    const again = await postMessages(h.api, JSON.stringify(smallRequest(10)), {
      'x-api-key': run.session_token,
    });
    assert.equal(again.status, 400);
  });

  test('the runner API refuses a model without a price with a 400 naming the model field', async () => {
    const run = await createRun(h.api, h.seed);
    const answer = await h.api.call('POST', `/v1/sessions/${run.session_id}/model-requests`, {
      token: run.session_token,
      body: {
        request_id: 'unpriced',
        model: 'claude-nobody-knows',
        max_output_tokens: 10,
        input: { messages: [{ role: 'user', content: 'hi' }] },
      },
    });
    assert.equal(answer.status, 400, JSON.stringify(answer.body));
    assert.deepEqual(errorPaths(answer.body), ['body.model']);
    const { rows } = await h.db.query('select 1 from model_reservations where session_id = $1', [
      run.session_id,
    ]);
    assert.equal(rows.length, 0);
  });

  test('end to end: the cost recorded is the price table applied to the reported usage, cache and long-context tiers included, streamed and not', async () => {
    const provider = await createProvider(h.api, h.seed, fake.url);
    const run = await createModelRun(h.api, h.seed, provider.id, 1_000_000);
    const client = gateClient(h.api, run.session_token);
    const usages = [
      // Under the threshold: each kind at its base price.
      {
        input_tokens: 1_000,
        cache_creation_input_tokens: 2_000,
        cache_read_input_tokens: 3_000,
        output_tokens: 400,
      },
      // 150k + 30k + 30k passes 200k: the whole request at the long-context tier.
      {
        input_tokens: 150_000,
        cache_creation_input_tokens: 30_000,
        cache_read_input_tokens: 30_000,
        output_tokens: 900,
      },
    ];
    const expected: number[] = [];
    for (const usage of usages) {
      for (const stream of [false, true]) {
        fake.setScript(() => ({ ...text('priced'), usage }));
        const request = { ...smallRequest(1_000), model: 'claude-sonnet-4-5-20250929' };
        if (stream)
          await drain(await client.messages.create({ ...request, stream: true } as never));
        else await client.messages.create(request as never);
        expected.push(
          costOf(sonnet, {
            input: usage.input_tokens,
            cache_write: usage.cache_creation_input_tokens,
            cache_read: usage.cache_read_input_tokens,
            output: usage.output_tokens,
          }),
        );
      }
    }
    const events = await eventsOf(h.db, run.session_id, 'model.reconciled');
    assert.deepEqual(
      events.map((e) => e.data.cost_nanos),
      expected,
    );
    const recorded = (await usageOf(h.db, run.session_id)).map((u) => Number(u.cost_nanos));
    assert.deepEqual(recorded.sort(), [...expected].sort());
    const total = expected.reduce((a, b) => a + b, 0);
    const view = await expectStatus(
      h.api.call('GET', `/v1/runs/${run.run_id}`, { token: run.session_token }),
      200,
    );
    assert.equal(view.budget.spent_usd, formatUsd(total));
    assert.equal(view.budget.held_usd, '0');
    // Sonnet 4.5 over 200k: $6 in, $7.50 written, $0.60 read, $22.50 out per million.
    assert.equal(expected[2], 150_000 * 6_000 + 30_000 * 7_500 + 30_000 * 600 + 900 * 22_500);
  });
});

describe('budgets at the levels above a run, kept by an admin', () => {
  test('an admin creates, reads, changes and removes a budget of their workspace; bad input is a 400 naming the field, nothing written', async () => {
    const admin = { token: h.seed.admin.token };
    const created = await h.api.call('POST', '/v1/budgets', {
      ...admin,
      body: {
        workspace: h.seed.workspace,
        level: 'team',
        team: 'payments',
        period: 'month',
        max_usd: '12.5',
      },
    });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    assert.equal(created.body.max_usd, '12.5');
    assert.equal(created.body.spent_usd, '0');
    assert.ok(created.body.period_start);
    const id = created.body.id as string;
    const duplicate = await h.api.call('POST', '/v1/budgets', {
      ...admin,
      body: {
        workspace: h.seed.workspace,
        level: 'team',
        team: 'payments',
        period: 'month',
        max_tokens: 5,
      },
    });
    assert.equal(duplicate.status, 409);

    const changed = await expectStatus(
      h.api.call('PUT', `/v1/budgets/${id}`, {
        ...admin,
        body: { max_tokens: 1_000, max_usd: null },
      }),
      200,
    );
    assert.equal(changed.max_usd, null);
    assert.equal(changed.max_tokens, 1_000);
    const uncapped = await h.api.call('PUT', `/v1/budgets/${id}`, {
      ...admin,
      body: { max_tokens: null },
    });
    assert.equal(uncapped.status, 400);
    assert.deepEqual(errorPaths(uncapped.body), ['body.max_tokens']);
    // Two changes at once, each removing the cap the other keeps: one applies, the other is
    // refused for what the first left, and the budget keeps a cap (never a 500).
    await expectStatus(
      h.api.call('PUT', `/v1/budgets/${id}`, { ...admin, body: { max_usd: '3' } }),
      200,
    );
    for (let round = 0; round < 5; round += 1) {
      await expectStatus(
        h.api.call('PUT', `/v1/budgets/${id}`, {
          ...admin,
          body: { max_usd: '3', max_tokens: 1_000 },
        }),
        200,
      );
      const racing = await Promise.all([
        h.api.call('PUT', `/v1/budgets/${id}`, { ...admin, body: { max_usd: null } }),
        h.api.call('PUT', `/v1/budgets/${id}`, { ...admin, body: { max_tokens: null } }),
      ]);
      assert.deepEqual(
        racing.map((answer) => answer.status).sort(),
        [200, 400],
        JSON.stringify(racing.map((answer) => answer.body)),
      );
      const kept = await expectStatus(h.api.call('GET', `/v1/budgets/${id}`, admin), 200);
      assert.ok(kept.max_usd !== null || kept.max_tokens !== null, 'a cap is kept');
    }
    // A cap whose nano-dollars could not be counted exactly is refused, naming the field.
    const tooLarge = await h.api.call('PUT', `/v1/budgets/${id}`, {
      ...admin,
      body: { max_usd: '9000000.000000001' },
    });
    assert.equal(tooLarge.status, 400);
    assert.deepEqual(errorPaths(tooLarge.body), ['body.max_usd']);
    await expectStatus(
      h.api.call('PUT', `/v1/budgets/${id}`, { ...admin, body: { max_usd: '9000000' } }),
      200,
    );
    const listed = await expectStatus(
      h.api.call('GET', `/v1/budgets?workspace=${h.seed.workspace}`, admin),
      200,
    );
    assert.ok(listed.budgets.some((b: { id: string }) => b.id === id));
    await expectStatus(h.api.call('DELETE', `/v1/budgets/${id}`, admin), 204);
    assert.equal((await h.api.call('GET', `/v1/budgets/${id}`, admin)).status, 404);

    const ws = h.seed.workspace;
    const cases: [Record<string, unknown>, string, number][] = [
      [{ workspace: ws, level: 'team', period: 'month', max_usd: '1' }, 'body.team', 400],
      [{ workspace: ws, level: 'person', period: 'day', max_usd: '1' }, 'body.person', 400],
      [{ workspace: ws, level: 'run', period: 'life', max_usd: '1' }, 'body.run', 400],
      [
        { workspace: ws, level: 'workspace', team: 'x', period: 'life', max_usd: '1' },
        'body.team',
        400,
      ],
      [{ workspace: ws, level: 'workspace', period: 'week', max_usd: '1' }, 'body.period', 400],
      [{ workspace: ws, level: 'workspace', period: 'life' }, 'body.max_usd', 400],
      [
        { workspace: ws, level: 'workspace', period: 'life', max_usd: '0.0000000001' },
        'body.max_usd',
        400,
      ],
      [{ workspace: ws, level: 'workspace', period: 'life', max_usd: '0' }, 'body.max_usd', 400],
      [{ workspace: ws, level: 'workspace', period: 'life', max_usd: 3 }, 'body.max_usd', 400],
      [
        { workspace: ws, level: 'workspace', period: 'life', max_tokens: 1.5 },
        'body.max_tokens',
        400,
      ],
      [
        { workspace: ws, level: 'person', person: randomUUID(), period: 'day', max_usd: '1' },
        'body.person',
        400,
      ],
      [
        { workspace: ws, level: 'run', run: randomUUID(), period: 'day', max_usd: '1' },
        'body.run',
        400,
      ],
    ];
    for (const [body, field, status] of cases) {
      const answer = await h.api.call('POST', '/v1/budgets', { ...admin, body });
      assert.equal(answer.status, status, `${field}: ${JSON.stringify(answer.body)}`);
      assert.match(answer.headers.get('content-type') ?? '', /^application\/problem\+json/);
      assert.ok(
        errorPaths(answer.body).includes(field),
        `${field}: ${JSON.stringify(answer.body)}`,
      );
    }
    const { rows } = await h.db.query('select 1 from spend_budgets where workspace_id = $1', [ws]);
    assert.equal(rows.length, 0);
    const otherWorkspace = await h.api.call('POST', '/v1/budgets', {
      ...admin,
      body: { workspace: randomUUID(), level: 'workspace', period: 'life', max_usd: '1' },
    });
    assert.equal(otherWorkspace.status, 404);
  });

  test('a tool call of a run with a spent level is denied at the budget stage, the level named; a held booking counts as spent', async () => {
    const run = await createRun(h.api, h.seed, { budget: { max_tokens: 1_000_000 } });
    const budget = await expectStatus(
      h.api.call('POST', '/v1/budgets', {
        ...op(),
        body: {
          workspace: h.seed.workspace,
          level: 'run',
          run: run.run_id,
          period: 'month',
          max_usd: '1',
        },
      }),
      201,
    );
    const allowed = await expectStatus(
      toolCallUntilAnswered(h.api, run, 'c1', { tool: 'Read', arguments: { file_path: 'a' } }),
      200,
    );
    assert.equal(allowed.decision, 'allow');
    await expectStatus(
      h.api.call('POST', `/v1/sessions/${run.session_id}/model-requests`, {
        token: run.session_token,
        body: {
          request_id: 'held',
          model: 'claude-sonnet-4-5',
          max_output_tokens: 1_000,
          input: { messages: [{ role: 'user', content: 'hi' }] },
        },
      }),
      201,
    );
    // The cap lowered under what is held: the level is spent.
    await expectStatus(
      h.api.call('PUT', `/v1/budgets/${budget.id}`, { ...op(), body: { max_usd: '0.001' } }),
      200,
    );
    const denied = await expectStatus(
      toolCallUntilAnswered(h.api, run, 'c2', { tool: 'Read', arguments: { file_path: 'a' } }),
      200,
    );
    assert.equal(denied.decision, 'deny');
    assert.equal(denied.source, 'budget');
    assert.match(denied.reason, /budget: run, month is spent/);
  });

  test('a request over a level refuses with the level named (402, and the runner API too); nothing is booked anywhere', async () => {
    const run = await createRun(h.api, h.seed, { budget: { max_tokens: 1_000_000 } });
    const budget = await expectStatus(
      h.api.call('POST', '/v1/budgets', {
        ...op(),
        body: {
          workspace: h.seed.workspace,
          level: 'person',
          person: h.seed.admin.user_id,
          period: 'day',
          max_usd: '0.01',
        },
      }),
      201,
    );
    const answer = await h.api.call('POST', `/v1/sessions/${run.session_id}/model-requests`, {
      token: run.session_token,
      body: {
        request_id: 'over',
        model: 'claude-sonnet-4-5',
        max_output_tokens: 1_000,
        input: { messages: [{ role: 'user', content: 'hi' }] },
      },
    });
    assert.equal(answer.status, 402, JSON.stringify(answer.body));
    assert.equal(answer.body.level, 'person "ana", day');
    assert.match(answer.body.detail, /budget: person "ana", day/);
    const held = await h.db.query('select held_nanos from run_budgets where run_id = $1', [
      run.run_id,
    ]);
    assert.equal(Number(held.rows[0].held_nanos), 0);
    await expectStatus(h.api.call('DELETE', `/v1/budgets/${budget.id}`, op()), 204);
  });
});
