import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, test } from 'vitest';
import Anthropic from '@anthropic-ai/sdk';
import { CredentialSealer } from '../../src/broker/sealing.js';
import { eventsOf } from '../budget/support.js';
import { startFakeAnthropic, type FakeAnthropic } from '../support/fake-anthropic.js';
import { useHarness } from '../support/harness.js';
import { createRun, expectStatus, runRequest, seedWorkspace } from '../support/seed.js';
import { createModelRun, createProvider, gateClient } from './support.js';

const h = useHarness();
let fake: FakeAnthropic;

beforeAll(async () => {
  fake = await startFakeAnthropic();
});
afterAll(async () => {
  await fake.close();
});

const operator = () => ({ token: h.api.operatorKey });
const greeting = { model: 'claude-fake-1', messages: [{ role: 'user' as const, content: 'Hi.' }] };
const hello = { ...greeting, max_tokens: 100 };

/** A run of the seeded workspace naming a model provider, as sent (the answer is not checked). */
function createRunNaming(modelProvider: string) {
  return h.api.call('POST', '/v1/runs', {
    ...operator(),
    body: runRequest(h.seed, { budget: { max_tokens: 1000 }, model_provider: modelProvider }),
  });
}

describe('model providers', () => {
  test('the key is sealed, bound to the provider id, and never returned', async () => {
    const provider = await createProvider(h.api, h.seed, 'https://api.example.com');
    const view = await expectStatus(
      h.api.call('GET', `/v1/model-providers/${provider.id}`, { token: h.api.operatorKey }),
      200,
    );
    assert.deepEqual(Object.keys(view).sort(), [
      'allow_url_sources',
      'base_url',
      'created_at',
      'id',
      'kind',
      'name',
      'removed_at',
      'workspace',
    ]);
    assert.ok(!JSON.stringify(view).includes(provider.key));
    const { rows } = await h.db.query('select * from model_providers where id = $1', [provider.id]);
    const stored = rows[0] as { sealed_credential: Buffer };
    assert.ok(!JSON.stringify(rows[0]).includes(provider.key));
    assert.ok(!stored.sealed_credential.includes(Buffer.from(provider.key)));
    const sealer = CredentialSealer.fromBase64(h.api.config.sealingKey);
    const sealed = sealer.fromStored(stored.sealed_credential);
    assert.deepEqual(sealer.unsealApiKey(provider.id, sealed), {
      type: 'api_key',
      key: provider.key,
    });
    assert.throws(() => sealer.unsealApiKey(randomUUID(), sealed));
    assert.throws(() => sealer.unseal(provider.id, sealed), /not a bearer credential/);
  });

  test('bad input is a 400 naming the field; an unknown workspace 404; a taken name 409; only the operator', async () => {
    const body = {
      workspace: h.seed.workspace,
      name: `p-${randomUUID().slice(0, 8)}`,
      kind: 'anthropic',
      base_url: 'https://api.example.com',
      credential: { type: 'api_key', key: 'sk-ant-x' },
    };
    const post = (b: unknown, token = h.api.operatorKey) =>
      h.api.call('POST', '/v1/model-providers', { token, body: b });
    const cases: [unknown, string][] = [
      [{ ...body, kind: 'gemini' }, 'body.kind'],
      [{ ...body, base_url: 'ftp://x' }, 'body.base_url'],
      [{ ...body, base_url: 'not a url' }, 'body.base_url'],
      [{ ...body, base_url: 'https://' }, 'body.base_url'],
      [{ ...body, base_url: 'https://api.example.com/?key=x' }, 'body.base_url'],
      [{ ...body, base_url: 'https://user:secret@api.example.com' }, 'body.base_url'],
      [{ ...body, credential: { type: 'api_key', key: '' } }, 'body.credential.key'],
      [{ ...body, credential: { type: 'bearer', token: 'x' } }, 'body.credential.type'],
      [{ ...body, extra: 1 }, 'body.extra'],
    ];
    for (const [bad, path] of cases) {
      const answer = await post(bad);
      assert.equal(answer.status, 400, JSON.stringify(answer.body));
      assert.ok(
        answer.body.errors.some((e: { path: string }) => e.path === path),
        path,
      );
    }
    assert.equal((await post({ ...body, workspace: randomUUID() })).status, 404);
    assert.equal((await post(body, h.seed.admin.token)).status, 403);
    await expectStatus(post(body), 201);
    assert.equal((await post(body)).status, 409);
  });

  test('a run freezes its provider; a provider of another workspace, or none, cannot be named', async () => {
    const provider = await createProvider(h.api, h.seed, 'https://api.example.com');
    const run = await createRun(h.api, h.seed, { model_provider: provider.id });
    const view = await expectStatus(
      h.api.call('GET', `/v1/runs/${run.run_id}`, { token: run.session_token }),
      200,
    );
    assert.equal(view.model_provider, provider.id);
    const [created] = await eventsOf(h.db, run.session_id, 'run.created');
    assert.equal(created!.data.model_provider, provider.id);

    const elsewhere = await seedWorkspace(h.api);
    const foreign = await createProvider(h.api, elsewhere, 'https://api.example.com');
    for (const id of [foreign.id, randomUUID()]) {
      const answer = await createRunNaming(id);
      assert.equal(answer.status, 404, JSON.stringify(answer.body));
    }
  });

  test('a rotated key is the one every later request carries; the key is never returned; only the operator rotates', async () => {
    const provider = await createProvider(h.api, h.seed, fake.url);
    const run = await createModelRun(h.api, h.seed, provider.id, 1_000_000);
    const client = gateClient(h.api, run.session_token);
    await client.messages.create(hello);
    assert.equal(fake.messages().at(-1)?.headers['x-api-key'], provider.key);

    const rotate = (key: unknown, token = h.api.operatorKey, id = provider.id) =>
      h.api.call('PUT', `/v1/model-providers/${id}/credential`, {
        token,
        body: { credential: { type: 'api_key', key } },
      });
    const newKey = `sk-ant-rotated-${randomUUID()}`;
    const rotated = await expectStatus(rotate(newKey), 200);
    assert.equal(rotated.id, provider.id);
    assert.equal(rotated.removed_at, null);
    assert.ok(!JSON.stringify(rotated).includes(newKey));
    await client.messages.create(hello);
    assert.equal(fake.messages().at(-1)?.headers['x-api-key'], newKey);
    await client.messages.countTokens(greeting);
    assert.equal(fake.requests.at(-1)?.headers['x-api-key'], newKey);
    const { rows } = await h.db.query(
      'select sealed_credential from model_providers where id = $1',
      [provider.id],
    );
    const sealer = CredentialSealer.fromBase64(h.api.config.sealingKey);
    const stored = sealer.fromStored((rows[0] as { sealed_credential: Buffer }).sealed_credential);
    assert.equal(sealer.unsealApiKey(provider.id, stored).key, newKey);

    assert.equal((await rotate('again', h.seed.admin.token)).status, 403);
    assert.equal((await rotate('again', run.session_token)).status, 403);
    assert.equal((await rotate('again', h.api.operatorKey, randomUUID())).status, 404);
    const empty = await rotate('');
    assert.equal(empty.status, 400);
    assert.deepEqual(
      empty.body.errors.map((e: { path: string }) => e.path),
      ['body.credential.key'],
    );
    const bearer = await h.api.call('PUT', `/v1/model-providers/${provider.id}/credential`, {
      ...operator(),
      body: { credential: { type: 'bearer', token: 'x' } },
    });
    assert.equal(bearer.status, 400);
  });

  test('a removed provider: its runs get a 403 permission_error from the model endpoint and reach no upstream; removal is idempotent; no new run names it; its name is free again', async () => {
    const provider = await createProvider(h.api, h.seed, fake.url);
    const run = await createModelRun(h.api, h.seed, provider.id, 1_000_000);
    const client = gateClient(h.api, run.session_token);
    await client.messages.create(hello);

    const remove = (token = h.api.operatorKey) =>
      h.api.call('DELETE', `/v1/model-providers/${provider.id}`, { token });
    assert.equal((await remove(h.seed.admin.token)).status, 403);
    const removed = await expectStatus(remove(), 200);
    assert.ok(!Number.isNaN(Date.parse(removed.removed_at)));
    assert.ok(!JSON.stringify(removed).includes(provider.key));
    const again = await expectStatus(remove(), 200);
    assert.equal(again.removed_at, removed.removed_at, 'the first removal time stays');

    const before = fake.requests.length;
    await assert.rejects(client.messages.create(hello), (err: unknown) => {
      assert.ok(err instanceof Anthropic.PermissionDeniedError, String(err));
      assert.equal(err.status, 403);
      assert.equal((err.error as { error: { type: string } }).error.type, 'permission_error');
      assert.match(err.message, /was removed/);
      return true;
    });
    await assert.rejects(client.messages.countTokens(greeting), Anthropic.PermissionDeniedError);
    assert.equal(fake.requests.length, before, 'nothing reached the upstream');
    const budget = await expectStatus(h.api.call('GET', `/v1/runs/${run.run_id}`, operator()), 200);
    assert.equal(budget.budget.held_tokens, 0);

    const rotation = await h.api.call('PUT', `/v1/model-providers/${provider.id}/credential`, {
      ...operator(),
      body: { credential: { type: 'api_key', key: 'sk-ant-late' } },
    });
    assert.equal(rotation.status, 409);
    const newRun = await createRunNaming(provider.id);
    assert.equal(newRun.status, 409, JSON.stringify(newRun.body));
    assert.match(newRun.body.detail, /was removed/);
    const { name } = await expectStatus(
      h.api.call('GET', `/v1/model-providers/${provider.id}`, operator()),
      200,
    );
    await expectStatus(
      h.api.call('POST', '/v1/model-providers', {
        ...operator(),
        body: {
          workspace: h.seed.workspace,
          name,
          kind: 'anthropic',
          base_url: fake.url,
          credential: { type: 'api_key', key: 'sk-ant-successor' },
        },
      }),
      201,
    );
    assert.equal(
      (await h.api.call('DELETE', `/v1/model-providers/${randomUUID()}`, operator())).status,
      404,
    );
  });
});
