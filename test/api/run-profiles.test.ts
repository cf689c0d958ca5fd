/**
 * Run profiles: the templates an interactive MCP client's authorization creates its run from,
 * managed by the operator and each workspace's admins, through the API and the admin's page.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, test } from 'vitest';
import { useHarness } from '../support/harness.js';
import { addMember, expectStatus, seedWorkspace } from '../support/seed.js';
import { csrfIn, signInOverHttp } from '../support/web-form.js';

const h = useHarness();

const profilesPath = (ws = h.seed.workspace) => `/v1/workspaces/${ws}/run-profiles`;
const profileBody = (overrides: Record<string, unknown> = {}) => ({
  name: `profile ${randomUUID()}`,
  policy_id: h.seed.policyId,
  tools: { bundles: [h.seed.bundleId] },
  budget: { max_tokens: 10_000 },
  autonomy: 'supervised',
  ...overrides,
});

describe('run profiles', () => {
  test("a workspace's admin creates, lists, reads, replaces and deletes its profiles", async () => {
    const admin = { token: h.seed.admin.token };
    const created = await expectStatus(
      h.api.call('POST', profilesPath(), {
        ...admin,
        body: profileBody({ trust_tier: 'read_only' }),
      }),
      201,
    );
    assert.equal(created.workspace, h.seed.workspace);
    assert.equal(created.trust_tier, 'read_only');
    assert.deepEqual(created.budget, { max_tokens: 10_000 });
    const list = await expectStatus(h.api.call('GET', profilesPath(), admin), 200);
    assert.ok(list.run_profiles.some((p: { id: string }) => p.id === created.id));
    const replaced = await expectStatus(
      h.api.call('PUT', `${profilesPath()}/${created.id}`, {
        ...admin,
        body: profileBody({ name: 'renamed', autonomy: 'autonomous' }),
      }),
      200,
    );
    assert.equal(replaced.name, 'renamed');
    assert.equal(replaced.trust_tier, 'trusted');
    await expectStatus(h.api.call('DELETE', `${profilesPath()}/${created.id}`, admin), 204);
    await expectStatus(h.api.call('GET', `${profilesPath()}/${created.id}`, admin), 404);
    // The operator reaches every workspace's.
    await expectStatus(
      h.api.call('POST', profilesPath(), { token: h.api.operatorKey, body: profileBody() }),
      201,
    );
  });

  test("a member who is no admin is refused; another workspace's admin finds nothing", async () => {
    const member = await addMember(h.api, h.seed.workspace, 'mia', 'approver');
    const refused = await h.api.call('POST', profilesPath(), {
      token: member.token,
      body: profileBody(),
    });
    assert.equal(refused.status, 403);
    assert.equal(refused.headers.get('content-type'), 'application/problem+json; charset=utf-8');
    const other = await seedWorkspace(h.api);
    const foreign = await h.api.call('GET', profilesPath(), { token: other.admin.token });
    assert.equal(foreign.status, 404);
    const sneaky = await h.api.call('POST', profilesPath(), {
      token: other.admin.token,
      body: profileBody(),
    });
    assert.equal(sneaky.status, 404);
  });

  test('bad input is a problem naming the field: the body, and what the profile names', async () => {
    const admin = { token: h.seed.admin.token };
    const missing = await h.api.call('POST', profilesPath(), {
      ...admin,
      body: { ...profileBody(), budget: { max_tokens: 0 }, extra: 1 },
    });
    assert.equal(missing.status, 400);
    const paths = (missing.body.errors as { path: string }[]).map((e) => e.path);
    assert.ok(paths.includes('body.budget.max_tokens'), JSON.stringify(paths));
    assert.ok(paths.includes('body.extra'), JSON.stringify(paths));

    const other = await seedWorkspace(h.api);
    const foreign = await h.api.call('POST', profilesPath(), {
      ...admin,
      body: profileBody({ policy_id: other.policyId, tools: { bundles: [other.bundleId] } }),
    });
    assert.equal(foreign.status, 400);
    assert.deepEqual(
      (foreign.body.errors as { path: string }[]).map((e) => e.path),
      ['body.policy_id', 'body.tools.bundles[0]'],
    );

    const name = `same ${randomUUID()}`;
    await expectStatus(
      h.api.call('POST', profilesPath(), { ...admin, body: profileBody({ name }) }),
      201,
    );
    const taken = await h.api.call('POST', profilesPath(), {
      ...admin,
      body: profileBody({ name: name.toUpperCase() }),
    });
    assert.equal(taken.status, 409);
  });

  test("the admin's page lists the profiles and creates one from the form, with its CSRF value", async () => {
    const cookie = await signInOverHttp(h.api.url, h.seed.admin.token);
    assert.ok(cookie);
    const pageAnswer = await fetch(`${h.api.url}/run-profiles`, { headers: { cookie } });
    assert.equal(pageAnswer.status, 200);
    const page = await pageAnswer.text();
    const name = `from the page ${randomUUID()}`;
    const fields = {
      csrf: csrfIn(page),
      name,
      description: '',
      policy_id: h.seed.policyId,
      [`bundle.${h.seed.bundleId}`]: 'on',
      max_tokens: '5000',
      autonomy: 'supervised',
      trust_tier: 'trusted',
    };
    const post = (body: Record<string, string>) =>
      fetch(`${h.api.url}/run-profiles`, {
        method: 'POST',
        headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams(body).toString(),
      });
    const created = await post(fields);
    assert.equal(created.status, 201);
    assert.match(await created.text(), new RegExp(`Profile ${name} created`));
    const list = await expectStatus(
      h.api.call('GET', profilesPath(), { token: h.seed.admin.token }),
      200,
    );
    const made = list.run_profiles.find((p: { name: string }) => p.name === name);
    assert.deepEqual(made?.tools, { bundles: [h.seed.bundleId], connections: [] });

    assert.equal((await post({ ...fields, csrf: 'forged', name: `${name} 2` })).status, 403);
    assert.equal((await post({ ...fields, name: `${name} 3`, surprise: 'x' })).status, 400);

    const member = await addMember(h.api, h.seed.workspace, 'max', 'member');
    const memberCookie = await signInOverHttp(h.api.url, member.token);
    const refused = await fetch(`${h.api.url}/run-profiles`, {
      headers: { cookie: memberCookie ?? '' },
    });
    assert.equal(refused.status, 403);
  });
});
