import assert from 'node:assert/strict';
import { test } from 'vitest';
import { useHarness } from '../support/harness.js';
import { createRun, defaultPolicy, expectStatus, toolCallUntilAnswered } from '../support/seed.js';
import { csrfIn, signInOverHttp } from '../support/web-form.js';

/**
 * The operator may sign in to the web form, for the Temporal UI's codec only: it is no member,
 * so every approvals page tells it so (403), never a 500 and never a decision.
 */
const h = useHarness({
  policy: {
    ...defaultPolicy,
    rules: [{ id: 'bash-asks', match: { tool: 'Bash' }, verdict: 'require_approval' }],
  },
});

test("the operator's web session is told what it is for, and every page for members answers 403 saying so; it decides nothing", async () => {
  const run = await createRun(h.api, h.seed);
  await expectStatus(
    toolCallUntilAnswered(h.api, run, 'c1', { tool: 'Bash', arguments: { command: 'x' } }),
    202,
  );
  const cookie = await signInOverHttp(h.api.url, h.api.operatorKey);
  assert.ok(cookie, 'the operator key signs in');
  const get = (path: string) =>
    fetch(h.api.url + path, { headers: { cookie }, redirect: 'manual' });

  const login = await get('/login');
  assert.equal(login.status, 200);
  const landing = await login.text();
  assert.match(landing, /Signed in as the operator/);
  assert.match(landing, /\/codec\/decode/);

  const detail = `/approvals/${run.session_id}/c1`;
  for (const path of ['/approvals', '/approvals/list', '/approvals/stream', detail]) {
    const answer = await get(path);
    assert.equal(answer.status, 403, path);
    assert.match(answer.headers.get('content-type') ?? '', /^text\/html/, path);
    const page = await answer.text();
    assert.match(page, /no member of a workspace/, path);
    assert.match(page, /action="\/logout"/, `${path} offers to sign out`);
  }

  const decided = await fetch(`${h.api.url}${detail}/decision`, {
    method: 'POST',
    redirect: 'manual',
    headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ csrf: csrfIn(landing), decision: 'approve' }).toString(),
  });
  assert.equal(decided.status, 403);
  const approval = await expectStatus(
    h.api.call('GET', `/v1/approvals/${run.session_id}/c1`, { token: h.seed.admin.token }),
    200,
  );
  assert.equal(approval.status, 'pending');
});

test('a wrong token or a near miss of the operator key signs nobody in', async () => {
  assert.equal(await signInOverHttp(h.api.url, `${h.api.operatorKey}x`), undefined);
  assert.equal(await signInOverHttp(h.api.url, h.api.operatorKey.slice(0, -1)), undefined);
  assert.equal(await signInOverHttp(h.api.url, 'fgo_'), undefined);
});
