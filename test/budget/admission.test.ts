import assert from 'node:assert/strict';
import { describe, test } from 'vitest';
import { formatUsd } from '../../src/domain/budget/pricing.js';
import { createRun, expectStatus } from '../support/seed.js';
import {
  admit,
  boundOf,
  budgetOf,
  eventsOf,
  modelInput,
  modelRequest,
  reportUsage,
  reservationsOf,
  usageOf,
} from './support.js';
import { useHarness } from '../support/harness.js';

const h = useHarness();

const input = modelInput();
const inputBound = boundOf(input);

describe('retries are idempotent', () => {
  test('the same request_id twice, also concurrently, makes one reservation and the same answer', async () => {
    const run = await createRun(h.api, h.seed, { budget: { max_tokens: 50_000 } });
    const body = modelRequest('same', 1_000);
    const answers = await Promise.all(Array.from({ length: 10 }, () => admit(h.api, run, body)));
    for (const answer of answers) assert.equal(answer.status, 201);
    const first = answers[0]!.body;
    // Sonnet 4.5's worst case: the input bound at its dearest input price (a 5-minute cache
    // write, $3.75 per million tokens) and the whole output at $15.
    assert.deepEqual(first, {
      reservation_id: `${run.session_id}/same`,
      booked_tokens: 1_000 + inputBound,
      booked_usd: formatUsd(inputBound * 3_750 + 1_000 * 15_000),
    });
    for (const answer of answers) assert.deepEqual(answer.body, first);
    assert.deepEqual(await expectStatus(admit(h.api, run, body), 201), first);

    const conflict = await admit(h.api, run, modelRequest('same', 2_000));
    assert.equal(conflict.status, 409);
    assert.equal(conflict.headers.get('content-type'), 'application/problem+json; charset=utf-8');

    assert.equal((await reservationsOf(h.db, run.session_id)).length, 1);
    assert.equal((await budgetOf(h.db, run.run_id)).held_tokens, 1_000 + inputBound);
    assert.equal((await eventsOf(h.db, run.session_id, 'model.reserved')).length, 1);
  });

  test('usage posted twice, also concurrently, makes one usage entry; the second changes nothing', async () => {
    const run = await createRun(h.api, h.seed, { budget: { max_tokens: 50_000 } });
    await expectStatus(admit(h.api, run, modelRequest('q1', 4_000)), 201);
    const usage = { input_tokens: 90, output_tokens: 1_234 };
    const answers = await Promise.all(
      Array.from({ length: 10 }, () => reportUsage(h.api, run, 'q1', usage)),
    );
    for (const answer of answers) assert.equal(answer.status, 200);
    const first = answers[0]!.body;
    assert.deepEqual(first, {
      reservation_id: `${run.session_id}/q1`,
      booked_tokens: 4_000 + inputBound,
      input_tokens: 90,
      output_tokens: 1_234,
      used_tokens: 1_324,
      released_tokens: 4_000 + inputBound,
      // 90 input tokens at $3 and 1,234 output tokens at $15 per million.
      cost_usd: '0.01878',
    });
    for (const answer of answers) assert.deepEqual(answer.body, first);
    const settled = { max_tokens: 50_000, held_tokens: 0, used_tokens: 1_324 };
    assert.deepEqual(await budgetOf(h.db, run.run_id), settled);

    assert.deepEqual(await expectStatus(reportUsage(h.api, run, 'q1', usage), 200), first);
    const other = await reportUsage(h.api, run, 'q1', { input_tokens: 1, output_tokens: 1 });
    assert.equal(other.status, 409);
    assert.deepEqual(await budgetOf(h.db, run.run_id), settled);
    assert.equal((await usageOf(h.db, run.session_id)).length, 1);
    assert.equal((await eventsOf(h.db, run.session_id, 'model.reconciled')).length, 1);

    const view = await expectStatus(
      h.api.call('GET', `/v1/runs/${run.run_id}`, { token: run.session_token }),
      200,
    );
    assert.deepEqual(view.budget, { ...settled, spent_usd: '0.01878', held_usd: '0' });
  });

  test('a refused request_id stays refused with the same answer, even after the budget frees up', async () => {
    const allowance = 2 * inputBound + 1_000;
    const run = await createRun(h.api, h.seed, { budget: { max_tokens: allowance } });
    await expectStatus(admit(h.api, run, modelRequest('big', 1_000)), 201);
    const refused = await admit(h.api, run, modelRequest('next', 10));
    assert.equal(refused.status, 402);
    assert.match(refused.body.type, /\/budget-exhausted$/);
    assert.equal(refused.headers.get('content-type'), 'application/problem+json; charset=utf-8');

    await expectStatus(reportUsage(h.api, run, 'big', { input_tokens: 5, output_tokens: 5 }), 200);
    const again = await admit(h.api, run, modelRequest('next', 10));
    assert.equal(again.status, 402);
    assert.deepEqual(again.body, refused.body);
    const usage = await reportUsage(h.api, run, 'next', { input_tokens: 1, output_tokens: 1 });
    assert.equal(usage.status, 409);
    await expectStatus(admit(h.api, run, modelRequest('fresh', 10)), 201);
  });
});

describe('bad input is refused with a 4xx naming the field, and books nothing', () => {
  test('bad model requests and usage reports: 400 at the failing path, no reservation, no event', async () => {
    const run = await createRun(h.api, h.seed, { budget: { max_tokens: 5_000 } });
    const cases: [string, unknown, string][] = [
      ['negative max_output_tokens', modelRequest('b1', -1), 'body.max_output_tokens'],
      ['zero max_output_tokens', modelRequest('b2', 0), 'body.max_output_tokens'],
      ['fractional max_output_tokens', modelRequest('b3', 1.5), 'body.max_output_tokens'],
      ['absurd max_output_tokens', modelRequest('b4', 1e12), 'body.max_output_tokens'],
      [
        'max_output_tokens as a string',
        { ...modelRequest('b5', 1), max_output_tokens: '10' },
        'body.max_output_tokens',
      ],
      ['max_output_tokens over the allowance', modelRequest('b6', 5_001), 'body.max_output_tokens'],
      ['missing input', { request_id: 'b7', model: 'm', max_output_tokens: 10 }, 'body.input'],
      [
        'input without messages',
        modelRequest('b8', 10, { messages: [] } as never),
        'body.input.messages',
      ],
      [
        'input with a search result block',
        modelRequest('b9', 10, {
          messages: [{ role: 'user', content: [{ type: 'search_result', source: 's' }] }],
        } as never),
        'body.input.messages[0].content[0].type',
      ],
      [
        'input with a sampling parameter',
        modelRequest('b10', 10, { ...input, temperature: 0 } as never),
        'body.input.temperature',
      ],
      [
        'input bound over the allowance',
        modelRequest('b11', 10, modelInput('x'.repeat(6_000))),
        'body.input',
      ],
      [
        'input and output together over the allowance',
        modelRequest('b12', 5_000 - inputBound + 1),
        'body.input',
      ],
      [
        'model that is prose',
        { ...modelRequest('b13', 10), model: 'please be brief' },
        'body.model',
      ],
      ['unknown field', { ...modelRequest('b14', 10), priority: 'high' }, 'body.priority'],
      ['bad request_id', modelRequest('has space', 10), 'body.request_id'],
    ];
    for (const [what, body, path] of cases) {
      const answer = await h.api.call('POST', `/v1/sessions/${run.session_id}/model-requests`, {
        token: run.session_token,
        body,
      });
      assert.equal(answer.status, 400, `${what}: ${JSON.stringify(answer.body)}`);
      assert.equal(answer.headers.get('content-type'), 'application/problem+json; charset=utf-8');
      const paths = (answer.body.errors as { path: string }[]).map((e) => e.path);
      assert.ok(paths.includes(path), `${what}: ${JSON.stringify(paths)}`);
    }
    const notJson = await h.api.call('POST', `/v1/sessions/${run.session_id}/model-requests`, {
      token: run.session_token,
      raw: '{"request_id":',
    });
    assert.equal(notJson.status, 400);

    await expectStatus(admit(h.api, run, modelRequest('ok', 10)), 201);
    const usageCases: [unknown, string][] = [
      [{ input_tokens: -1, output_tokens: 0 }, 'body.input_tokens'],
      [{ input_tokens: 1, output_tokens: 1e12 }, 'body.output_tokens'],
      [{ input_tokens: 1 }, 'body.output_tokens'],
      [
        { input_tokens: 1, output_tokens: 1, cache_read_input_tokens: 1 },
        'body.cache_read_input_tokens',
      ],
    ];
    for (const [body, path] of usageCases) {
      const answer = await reportUsage(h.api, run, 'ok', body as Record<string, unknown>);
      assert.equal(answer.status, 400, JSON.stringify(answer.body));
      assert.ok(
        answer.body.errors.some((e: { path: string }) => e.path === path),
        path,
      );
    }
    const unknown = await reportUsage(h.api, run, 'never', { input_tokens: 1, output_tokens: 1 });
    assert.equal(unknown.status, 404);

    const rows = await reservationsOf(h.db, run.session_id);
    assert.deepEqual(
      rows.map((r) => [r.request_id, r.status]),
      [['ok', 'held']],
    );
    assert.deepEqual(await budgetOf(h.db, run.run_id), {
      max_tokens: 5_000,
      held_tokens: 10 + inputBound,
      used_tokens: 0,
    });
    assert.equal((await usageOf(h.db, run.session_id)).length, 0);
    const modelEvents = (await eventsOf(h.db, run.session_id)).filter((e) =>
      e.type.startsWith('model.'),
    );
    assert.deepEqual(
      modelEvents.map((e) => e.type),
      ['model.reserved'],
    );
  });

  test("another session's runner cannot admit or reconcile here", async () => {
    const run = await createRun(h.api, h.seed);
    const other = await createRun(h.api, h.seed);
    const answer = await h.api.call('POST', `/v1/sessions/${run.session_id}/model-requests`, {
      token: other.session_token,
      body: modelRequest('x', 10),
    });
    assert.equal(answer.status, 404);
    const operator = await h.api.call('POST', `/v1/sessions/${run.session_id}/model-requests`, {
      token: h.api.operatorKey,
      body: modelRequest('x', 10),
    });
    assert.equal(operator.status, 403);
    assert.equal((await reservationsOf(h.db, run.session_id)).length, 0);
  });

  test("a long context fits the model-request body limit (16 MiB), which is wider than a tool call's; beyond it is a 413", async () => {
    const run = await createRun(h.api, h.seed, { budget: { max_tokens: 50_000_000 } });
    const long = modelInput('word '.repeat(600_000)); // 3 MB of prompt
    const admitted = await admit(h.api, run, {
      request_id: 'long',
      model: 'claude-sonnet-4',
      max_output_tokens: 1000,
      input: long,
    });
    assert.equal(admitted.status, 201, JSON.stringify(admitted.body));
    assert.equal(admitted.body.booked_tokens, 1000 + boundOf(long));
    const huge = modelInput('word '.repeat(4_000_000)); // 20 MB
    const refused = await admit(h.api, run, {
      request_id: 'huge',
      model: 'claude-sonnet-4',
      max_output_tokens: 1000,
      input: huge,
    });
    assert.equal(refused.status, 413);
    assert.equal((await reservationsOf(h.db, run.session_id)).length, 1);
  });
});
