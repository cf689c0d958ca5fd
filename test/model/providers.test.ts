import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, test } from 'vitest';
import { CredentialSealer } from '../../src/broker/sealing.js';
import { eventsOf } from '../budget/support.js';
import { useHarness } from '../support/harness.js';
import { createRun, expectStatus, seedWorkspace } from '../support/seed.js';
import { createProvider } from './support.js';

const h = useHarness();

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
      [{ ...body, kind: 'openai' }, 'body.kind'],
      [{ ...body, base_url: 'ftp://x' }, 'body.base_url'],
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
      const answer = await h.api.call('POST', '/v1/runs', {
        token: h.api.operatorKey,
        body: {
          workspace: h.seed.workspace,
          session_id: `s-${randomUUID()}`,
          invoked_by: h.seed.admin.user_id,
          source: { kind: 'manual' },
          autonomy: 'supervised',
          policy_id: h.seed.policyId,
          tools: { bundles: [h.seed.bundleId] },
          budget: { max_tokens: 1000 },
          model_provider: id,
        },
      });
      assert.equal(answer.status, 404, JSON.stringify(answer.body));
    }
  });
});
