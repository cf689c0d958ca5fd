import { randomUUID } from 'node:crypto';
import assert from 'node:assert/strict';
import { describe, test } from 'vitest';
import { createRun, expectStatus, toolCall } from '../support/seed.js';
import { useHarness } from '../support/harness.js';

const h = useHarness();

/** Rows of this file's own making: other files write to the same tables at the same time. */
async function count(sql: string, ...params: unknown[]): Promise<number> {
  const { rows } = await h.db.query<{ n: number }>(`select count(*)::int as n from ${sql}`, params);
  return rows[0]!.n;
}

function assertProblem(answer: { status: number; body: any; headers: Headers }, status: number) {
  assert.equal(answer.status, status, JSON.stringify(answer.body));
  assert.match(answer.headers.get('content-type') ?? '', /^application\/problem\+json/);
  assert.equal(answer.body.status, status);
  assert.equal(typeof answer.body.title, 'string');
  assert.equal(typeof answer.body.detail, 'string');
  assert.equal(typeof answer.body.type, 'string');
}

describe('every route authenticates', () => {
  test('no token, a malformed header or an unknown token: 401', async () => {
    assertProblem(await h.api.call('POST', '/v1/workspaces', { body: { name: 'x' } }), 401);
    assertProblem(
      await h.api.call('POST', '/v1/workspaces', {
        body: { name: 'x' },
        headers: { authorization: 'Basic abc' },
      }),
      401,
    );
    assertProblem(
      await h.api.call('POST', '/v1/workspaces', { token: 'fgs_unknown', body: { name: 'x' } }),
      401,
    );
    assertProblem(
      await h.api.call('POST', '/v1/workspaces', {
        token: 'not-the-key-at-all',
        body: { name: 'x' },
      }),
      401,
    );
    const run = await createRun(h.api, h.seed);
    assertProblem(
      await h.api.call('PUT', `/v1/sessions/${run.session_id}/tool-calls/c1`, { body: {} }),
      401,
    );
    assertProblem(await h.api.call('GET', `/v1/runs/${run.run_id}`), 401);
  });

  test("a runner never sees another session: its token on another session's routes is 404", async () => {
    const mine = await createRun(h.api, h.seed);
    const theirs = await createRun(h.api, h.seed);
    const answer = await h.api.call('PUT', `/v1/sessions/${theirs.session_id}/tool-calls/c1`, {
      token: mine.session_token,
      body: { tool: 'Read', arguments: { file_path: 'a' } },
    });
    assertProblem(answer, 404);
    assertProblem(
      await h.api.call('GET', `/v1/sessions/${theirs.session_id}/tool-calls/c1`, {
        token: mine.session_token,
      }),
      404,
    );
    assertProblem(
      await h.api.call('GET', `/v1/runs/${theirs.run_id}`, { token: mine.session_token }),
      404,
    );
    const own = await expectStatus(
      h.api.call('GET', `/v1/runs/${mine.run_id}`, { token: mine.session_token }),
      200,
    );
    assert.equal(own.session_id, mine.session_id);
    assert.equal(own.session_token, undefined);
    assert.deepEqual(own.budget, {
      max_tokens: 100_000,
      held_tokens: 0,
      used_tokens: 0,
      held_usd: '0',
      spent_usd: '0',
    });
  });

  test('a runner or a user calling operator routes: 403', async () => {
    const run = await createRun(h.api, h.seed);
    for (const token of [run.session_token, h.seed.admin.token]) {
      assertProblem(
        await h.api.call('POST', '/v1/workspaces', { token, body: { name: 'x' } }),
        403,
      );
      assertProblem(
        await h.api.call('POST', '/v1/policies', {
          token,
          body: { workspace: h.seed.workspace, name: 'x' },
        }),
        403,
      );
      assertProblem(
        await h.api.call('GET', `/v1/policies/${h.seed.policyId}/versions/1`, { token }),
        403,
      );
    }
  });

  test('the operator may not act as a runner', async () => {
    const run = await createRun(h.api, h.seed);
    assertProblem(
      await h.api.call('PUT', `/v1/sessions/${run.session_id}/tool-calls/c1`, {
        token: h.api.operatorKey,
        body: { tool: 'Read', arguments: {} },
      }),
      403,
    );
  });
});

describe('bad input gets a clear error and loses nothing', () => {
  test('malformed JSON: 400 problem, nothing written', async () => {
    const name = `malformed-${randomUUID()}`;
    assertProblem(
      await h.api.call('POST', '/v1/workspaces', {
        token: h.api.operatorKey,
        raw: `{"name": "${name}"`,
      }),
      400,
    );
    const run = await createRun(h.api, h.seed);
    assertProblem(
      await h.api.call('PUT', `/v1/sessions/${run.session_id}/tool-calls/c1`, {
        token: run.session_token,
        raw: '{',
      }),
      400,
    );
    assert.equal(await count('workspaces where name = $1', name), 0);
    assert.equal(await count('tool_calls where session_id = $1', run.session_id), 0);
  });

  test('unknown fields are rejected, naming the path', async () => {
    const name = `unknown-field-${randomUUID()}`;
    const answer = await h.api.call('POST', '/v1/workspaces', {
      token: h.api.operatorKey,
      body: { name, owner: 'me' },
    });
    assertProblem(answer, 400);
    assert.deepEqual(answer.body.errors, [{ path: 'body.owner', message: 'unknown field' }]);
    const run = await createRun(h.api, h.seed);
    const call = await toolCall(h.api, run, 'c1', { tool: 'Read', arguments: {}, sneaky: true });
    assertProblem(call, 400);
    assert.equal(await count('workspaces where name = $1', name), 0);
    const { rows } = await h.db.query('select 1 from tool_calls where session_id = $1', [
      run.session_id,
    ]);
    assert.equal(rows.length, 0);
  });

  test('a run body with wrong values names every failing field, and creates no run', async () => {
    const runs = await count('runs where workspace_id = $1', h.seed.workspace);
    const answer = await h.api.call('POST', '/v1/runs', {
      token: h.api.operatorKey,
      body: {
        workspace: 'not-a-uuid',
        session_id: 'has/slash',
        invoked_by: h.seed.admin.user_id,
        source: { kind: 'elsewhere' },
        autonomy: 'supervised',
        policy_id: h.seed.policyId,
        tools: { bundles: [] },
        budget: { max_tokens: -5 },
      },
    });
    assertProblem(answer, 400);
    const paths = answer.body.errors.map((e: any) => e.path).sort();
    assert.deepEqual(paths, [
      'body.budget.max_tokens',
      'body.session_id',
      'body.source.kind',
      'body.workspace',
    ]);
    assert.equal(await count('runs where workspace_id = $1', h.seed.workspace), runs);
  });

  test('a body over the limit: 413 problem, nothing written', async () => {
    const run = await createRun(h.api, h.seed);
    const huge = { tool: 'Read', arguments: { file_path: 'x'.repeat(2 * 1024 * 1024) } };
    assertProblem(await toolCall(h.api, run, 'c1', huge), 413);
    const { rows } = await h.db.query('select 1 from tool_calls where session_id = $1', [
      run.session_id,
    ]);
    assert.equal(rows.length, 0);
  });

  test("credentials before the body: an unknown caller's body over the limit is a 401, never read", async () => {
    const run = await createRun(h.api, h.seed);
    const huge = JSON.stringify({ tool: 'Read', arguments: { file_path: 'x'.repeat(2 << 20) } });
    const path = `/v1/sessions/${run.session_id}/tool-calls/${randomUUID()}`;
    assertProblem(await h.api.call('PUT', path, { raw: huge }), 401);
    assertProblem(await h.api.call('PUT', path, { raw: huge, token: 'fgs_not-a-token' }), 401);
    const model = `/v1/sessions/${run.session_id}/model-requests`;
    assertProblem(await h.api.call('POST', model, { raw: 'x'.repeat(15 << 20) }), 401);
  });

  test('a path parameter of the wrong shape is a 400, not a database error', async () => {
    assertProblem(
      await h.api.call('GET', '/v1/policies/not-a-uuid/versions/1', { token: h.api.operatorKey }),
      400,
    );
    assertProblem(
      await h.api.call('GET', `/v1/policies/${h.seed.policyId}/versions/zero`, {
        token: h.api.operatorKey,
      }),
      400,
    );
    assertProblem(await h.api.call('GET', '/v1/runs/123', { token: h.api.operatorKey }), 400);
  });

  test('unknown routes and unknown things are 404 problems', async () => {
    assertProblem(await h.api.call('GET', '/v1/nothing-here', { token: h.api.operatorKey }), 404);
    assertProblem(
      await h.api.call('GET', `/v1/policies/${h.seed.policyId}/versions/99`, {
        token: h.api.operatorKey,
      }),
      404,
    );
    assertProblem(
      await h.api.call('POST', '/v1/workspaces/00000000-0000-4000-8000-000000000000/members', {
        token: h.api.operatorKey,
        body: { name: 'x', role: 'member' },
      }),
      404,
    );
  });

  test('a session id already in use: 409, the first run unchanged', async () => {
    const run = await createRun(h.api, h.seed);
    const again = await h.api.call('POST', '/v1/runs', {
      token: h.api.operatorKey,
      body: {
        workspace: h.seed.workspace,
        session_id: run.session_id,
        invoked_by: h.seed.admin.user_id,
        source: { kind: 'manual' },
        autonomy: 'supervised',
        policy_id: h.seed.policyId,
        tools: { bundles: [h.seed.bundleId] },
        budget: { max_tokens: 5 },
      },
    });
    assertProblem(again, 409);
    const still = await expectStatus(
      h.api.call('GET', `/v1/runs/${run.run_id}`, { token: h.api.operatorKey }),
      200,
    );
    assert.equal(still.budget.max_tokens, 100_000);
  });

  test('a suspended member cannot invoke a run', async () => {
    const member = await expectStatus(
      h.api.call('POST', `/v1/workspaces/${h.seed.workspace}/members`, {
        token: h.api.operatorKey,
        body: { name: 'sam', role: 'member' },
      }),
      201,
    );
    await expectStatus(
      h.api.call('PATCH', `/v1/workspaces/${h.seed.workspace}/members/${member.user_id}`, {
        token: h.api.operatorKey,
        body: { status: 'suspended' },
      }),
      200,
    );
    const answer = await h.api.call('POST', '/v1/runs', {
      token: h.api.operatorKey,
      body: {
        workspace: h.seed.workspace,
        session_id: `s-suspended-${Date.now()}`,
        invoked_by: member.user_id,
        source: { kind: 'manual' },
        autonomy: 'supervised',
        policy_id: h.seed.policyId,
        tools: { bundles: [h.seed.bundleId] },
        budget: { max_tokens: 5 },
      },
    });
    assertProblem(answer, 400);
    assert.equal(answer.body.errors[0].path, 'body.invoked_by');
  });
});

describe('hostile bodies', () => {
  test('arguments nested beyond the limit are a 400 naming the field, not a crash', async () => {
    const run = await createRun(h.api, h.seed);
    for (const levels of [5_000, 150_000]) {
      const raw = `{"tool":"Read","arguments":{"file_path":${'{"d":'.repeat(levels)}1${'}'.repeat(levels)}}}`;
      const answer = await h.api.call(
        'PUT',
        `/v1/sessions/${run.session_id}/tool-calls/deep-${levels}`,
        {
          token: run.session_token,
          raw,
        },
      );
      assertProblem(answer, 400);
      if (levels === 5_000) assert.equal(answer.body.errors[0].path, 'body.arguments');
    }
    const { rows } = await h.db.query('select 1 from tool_calls where session_id = $1', [
      run.session_id,
    ]);
    assert.equal(rows.length, 0);
  });
});
