import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, test } from 'vitest';
import { startTestApi, type TestApi } from '../support/api.js';
import { startRugpullUpstream, type RugpullUpstream } from '../support/rugpull-upstream.js';
import {
  createRun,
  defaultPolicy,
  expectStatus,
  seedWorkspace,
  toolCall,
  untilAnswered,
  type CreatedRun,
} from '../support/seed.js';

let api: TestApi;
let upstream: RugpullUpstream;
const upstreamToken = randomBytes(16).toString('hex');

beforeAll(async () => {
  api = await startTestApi({ approvalRecheckS: 1 });
  upstream = await startRugpullUpstream({ token: upstreamToken });
});
afterAll(async () => {
  await upstream.close();
  await api.close();
});

test('who may decide: owner, admin, operator, approver, suspended approver and a stranger, approving and denying calls on a personal and an org connection', async () => {
  const op = { token: api.operatorKey };
  const seed = await seedWorkspace(api, {
    ...defaultPolicy,
    rules: [{ id: 'humans-decide', match: { class: 'brokered' }, verdict: 'require_approval' }],
  });
  const member = async (workspace: string, name: string, role: string) => {
    const m = await expectStatus(
      api.call('POST', `/v1/workspaces/${workspace}/members`, { ...op, body: { name, role } }),
      201,
    );
    return { user_id: m.user_id as string, token: m.user_token as string };
  };
  const owner = await member(seed.workspace, 'olive', 'member');
  const admin = seed.admin;
  const approver = await member(seed.workspace, 'april', 'approver');
  const suspended = await member(seed.workspace, 'sus', 'approver');
  await expectStatus(
    api.call('PATCH', `/v1/workspaces/${seed.workspace}/members/${suspended.user_id}`, {
      ...op,
      body: { status: 'suspended' },
    }),
    200,
  );
  const other = await expectStatus(
    api.call('POST', '/v1/workspaces', { ...op, body: { name: 'other' } }),
    201,
  );
  const stranger = await member(other.id, 'stan', 'admin');

  const connect = (name: string, personal: boolean) =>
    expectStatus(
      api.call('POST', '/v1/connections', {
        ...op,
        body: {
          workspace: seed.workspace,
          name,
          kind: personal ? 'personal' : 'org',
          ...(personal && { owner_user_id: owner.user_id }),
          url: upstream.url,
          credential: { type: 'bearer', token: upstreamToken },
        },
      }),
      201,
    );
  const personal = await connect('mine', true);
  const org = await connect('team', false);
  const run: CreatedRun = await createRun(api, seed, {
    invoked_by: owner.user_id,
    tools: { connections: [{ id: personal.id }, { id: org.id }] },
  });

  const deciders: [string, string][] = [
    ['owner', owner.token],
    ['admin', admin.token],
    ['operator', api.operatorKey],
    ['approver', approver.token],
    ['suspended approver', suspended.token],
    ['member of another workspace', stranger.token],
  ];
  const expected: Record<'personal' | 'org', Record<string, number>> = {
    personal: {
      owner: 200,
      admin: 403,
      operator: 403,
      approver: 403,
      'suspended approver': 403,
      'member of another workspace': 404,
    },
    org: {
      owner: 403,
      admin: 200,
      operator: 403,
      approver: 200,
      'suspended approver': 403,
      'member of another workspace': 404,
    },
  };
  // Each case is its own call: they run side by side and each is checked on its own.
  const cases = (['personal', 'org'] as const).flatMap((kind) =>
    deciders.flatMap(([who, credential]) =>
      (['approve', 'deny'] as const).map((decision) => ({ kind, who, credential, decision })),
    ),
  );
  const table = await Promise.all(
    cases.map(async ({ kind, who, credential, decision }, n) => {
      const tool = kind === 'personal' ? 'mcp__mine__search_notes' : 'mcp__team__search_notes';
      const id = `c${n}`;
      // Two dozen calls of one run at once on a machine that may run two suites: one that meets
      // PostgreSQL past its statement bound answers 503, and is sent again, as a runner does.
      await expectStatus(
        untilAnswered(() => toolCall(api, run, id, { tool, arguments: { query: 'q' } })),
        202,
      );
      const answer = await untilAnswered(() =>
        api.call('POST', `/v1/approvals/${run.session_id}/${id}/decision`, {
          token: credential,
          body: { decision },
        }),
      );
      assert.equal(
        answer.status,
        expected[kind][who],
        `${kind} call, ${who} ${decision}s: ${JSON.stringify(answer.body)}`,
      );
      if (answer.status === 200) {
        const settled = await expectStatus(
          api.call('GET', `/v1/sessions/${run.session_id}/tool-calls/${id}?wait=10`, {
            token: run.session_token,
          }),
          200,
        );
        assert.equal(settled.decision, decision === 'approve' ? 'allow' : 'deny');
      }
      return `${kind} ${who} ${decision}: ${answer.status}`;
    }),
  );
  assert.equal(table.length, 24);

  const ownersList = await expectStatus(
    api.call('GET', '/v1/approvals?status=pending', { token: owner.token }),
    200,
  );
  assert.ok(ownersList.approvals.every((a: any) => a.authority === 'owner'));
  const adminsList = await expectStatus(
    api.call('GET', '/v1/approvals?status=pending', { token: admin.token }),
    200,
  );
  assert.ok(adminsList.approvals.length > 0);
  assert.ok(adminsList.approvals.every((a: any) => a.authority === 'workspace_approvers'));
});
