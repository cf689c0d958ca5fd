/**
 * A run's standing approvals over the API: listed by its workspace's members with a scope only
 * for who may read the call it was given with, revoked by who may decide its calls; a timed grant
 * stops at its end; a grant answers only the rule that asked when it was given.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, test } from 'vitest';
import { useHarness } from '../support/harness.js';
import {
  addMember,
  builtinTools,
  createRun,
  defaultPolicy,
  expectStatus,
  seedWorkspace,
  toolCall,
  type CreatedRun,
} from '../support/seed.js';
import { signInOverHttp } from '../support/web-form.js';

const policy = {
  ...defaultPolicy,
  name: 'ask',
  rules: [
    { id: 'reads', match: { effect: 'read' }, verdict: 'allow' },
    {
      id: 'ask-run-lines',
      match: { tool: 'Write', args: [{ path: '/content', op: 'prefix', value: 'run:' }] },
      verdict: 'require_approval',
    },
    { id: 'ask-bash', match: { tool: 'Bash' }, verdict: 'require_approval' },
  ],
  default: 'require_approval',
};
const writeTool = {
  name: 'Write',
  effect: 'write',
  input_schema: {
    type: 'object',
    properties: { file_path: { type: 'string' }, content: { type: 'string' } },
  },
};
const h = useHarness({ policy });
const secretPath = `/repo/secret-${randomUUID()}.yml`;
let run: CreatedRun;
const people = {} as Record<'approver' | 'member', { user_id: string; token: string }>;

interface GrantAnswer {
  grant_id: string;
  state: string;
  kind: string | null;
  scope?: { text: string; arguments: Record<string, unknown> } | null;
  scope_hidden?: true;
  rule_id: string | null;
  expires_at: string | null;
  may_revoke: boolean;
}

const call = (id: string, tool: string, args: Record<string, unknown>) =>
  toolCall(h.api, run, id, { tool, arguments: args });

/** Asks, then approves with a grant over the API; the grant's id. */
async function approveWithGrant(
  id: string,
  tool: string,
  args: Record<string, unknown>,
  grant: object,
) {
  await expectStatus(call(id, tool, args), 202);
  const decided = await expectStatus<{ grant_id?: string }>(
    h.api.call('POST', `/v1/approvals/${run.session_id}/${id}/decision`, {
      token: people.approver.token,
      body: { decision: 'approve', grant },
    }),
    200,
  );
  assert.ok(decided.grant_id);
  return decided.grant_id;
}

const listGrants = (token: string, runId = run.run_id) =>
  h.api.call('GET', `/v1/runs/${runId}/grants`, { token });

describe("a run's grants over the API", () => {
  beforeAll(async () => {
    people.approver = await addMember(h.api, h.seed.workspace, 'april', 'approver');
    people.member = await addMember(h.api, h.seed.workspace, 'mo', 'member');
    const bundle = await expectStatus<{ id: string }>(
      h.api.call('POST', '/v1/capability-bundles', {
        token: h.api.operatorKey,
        body: { workspace: h.seed.workspace, name: 'files', version: '1', tools: [writeTool] },
      }),
      201,
    );
    run = await createRun(h.api, h.seed, { tools: { bundles: [h.seed.bundleId, bundle.id] } });
    assert.ok(builtinTools.some((t) => t.name === 'Bash'));
  });

  test("a grant's scope is shown only to who may read its call; others see the tool and scope_hidden, in the API and on the run page", async () => {
    const grantId = await approveWithGrant(
      'w1',
      'Write',
      { file_path: secretPath, content: 'ok' },
      { scope: 'any_content' },
    );
    const byApprover = await expectStatus<{ grants: GrantAnswer[] }>(
      listGrants(people.approver.token),
      200,
    );
    const shown = byApprover.grants.find((g) => g.grant_id === grantId);
    assert.equal(shown?.kind, 'any_content');
    assert.equal(shown.scope?.text, `Write: ${secretPath}, any content`);
    assert.equal(shown.rule_id, null, "it was asked by the policy's default");
    assert.equal(shown.may_revoke, true);

    const byMember = await expectStatus<{ grants: GrantAnswer[] }>(
      listGrants(people.member.token),
      200,
    );
    const hidden = byMember.grants.find((g) => g.grant_id === grantId);
    assert.equal(hidden?.scope_hidden, true);
    assert.equal(hidden.may_revoke, false);
    assert.ok(!JSON.stringify(byMember).includes(secretPath), 'no path in the member’s list');

    for (const [who, token, sees] of [
      ['the approver', people.approver.token, true],
      ['a member', people.member.token, false],
    ] as const) {
      const cookie = (await signInOverHttp(h.api.url, token))!;
      const page = await fetch(`${h.api.url}/approvals/runs/${run.run_id}`, {
        headers: { cookie },
      });
      const text = await page.text();
      assert.equal(page.status, 200);
      assert.equal(text.includes(secretPath), sees, `${who} on the run page`);
      assert.equal(text.includes('withheld'), !sees, `${who} is told the values are withheld`);
    }
  });

  test('a grant answers only the rule that asked when it was given: the same path under another rule asks', async () => {
    const covered = await expectStatus(
      call('w2', 'Write', { file_path: secretPath, content: 'other' }),
      200,
    );
    assert.equal(covered.decision, 'allow');
    const underRule = await call('w3', 'Write', {
      file_path: secretPath,
      content: 'run: curl x | sh',
    });
    assert.equal(
      underRule.status,
      202,
      "a grant of the policy's default does not answer ask-run-lines",
    );
  });

  test('a grant is revoked by who may decide its calls, 403 for others, 404 for another workspace; the calls it covered ask again', async () => {
    const grantId = await approveWithGrant('b1', 'Bash', { command: 'npm run lint' }, {});
    assert.equal(
      (
        await expectStatus(
          call('b2', 'Bash', { command: 'npm run lint', description: 'lint' }),
          200,
        )
      ).decision,
      'allow',
    );
    const path = `/v1/runs/${run.run_id}/grants/${grantId}`;
    const byMember = await h.api.call('DELETE', path, { token: people.member.token });
    assert.equal(byMember.status, 403);
    assert.match(byMember.headers.get('content-type') ?? '', /problem\+json/);

    const other = await seedWorkspace(h.api, policy);
    assert.equal((await h.api.call('DELETE', path, { token: other.admin.token })).status, 404);
    assert.equal((await listGrants(other.admin.token)).status, 404);

    const bad = await h.api.call('DELETE', `/v1/runs/${run.run_id}/grants/not-a-uuid`, {
      token: people.approver.token,
    });
    assert.equal(bad.status, 400);
    assert.match(bad.headers.get('content-type') ?? '', /problem\+json/);
    assert.match(JSON.stringify(bad.body), /grant_id/);

    const revoked = await expectStatus<GrantAnswer>(
      h.api.call('DELETE', path, { token: people.approver.token }),
      200,
    );
    assert.equal(revoked.state, 'revoked');
    const again = await expectStatus<GrantAnswer>(
      h.api.call('DELETE', path, { token: people.approver.token }),
      200,
    );
    assert.equal(again.state, 'revoked', 'revoking again changes nothing');
    const events = await h.db.query(
      "select 1 from ledger_events where stream_id = $1 and type = 'grant.revoked'",
      [run.session_id],
    );
    assert.equal(events.rowCount, 1);
    assert.equal((await call('b3', 'Bash', { command: 'npm run lint' })).status, 202);
  });

  test('a timed grant stops at its end', async () => {
    const grantId = await approveWithGrant(
      't1',
      'Bash',
      { command: 'npm run short' },
      { for_s: 10 },
    );
    const listed = await expectStatus<{ grants: GrantAnswer[] }>(
      listGrants(people.approver.token),
      200,
    );
    const grant = listed.grants.find((g) => g.grant_id === grantId);
    assert.ok(grant?.expires_at);
    const covered = await expectStatus(call('t2', 'Bash', { command: 'npm run short' }), 200);
    assert.match(String(covered.reason), /allowed the same for 10 seconds/);
    const end = Date.parse(grant.expires_at);
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, end - Date.now()) + 500));
    assert.equal((await call('t3', 'Bash', { command: 'npm run short' })).status, 202);
    const after = await expectStatus<{ grants: GrantAnswer[] }>(
      listGrants(people.approver.token),
      200,
    );
    assert.equal(after.grants.find((g) => g.grant_id === grantId)?.state, 'expired');
  });
});
