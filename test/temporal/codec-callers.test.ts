import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, test } from 'vitest';
import { hashToken } from '../../src/application/tokens.js';
import { asSessionId, asToolCallId, gateWorkflowId } from '../../src/domain/gate/ids.js';
import { startTestApi } from '../support/api.js';
import { testConfig } from '../support/env.js';
import { useHarness } from '../support/harness.js';
import { createRun, expectStatus, seedWorkspace, toolCallUntilAnswered } from '../support/seed.js';
import { closedHistory, payloadsOf } from '../support/temporal.js';
import { signInOverHttp } from '../support/web-form.js';

/**
 * Who may open the gate's payloads through /codec: the operator (its key, or its web session)
 * and nobody else. The payloads tried are a workspace A tool call's, read from Temporal's own
 * record of the workflow.
 */

const uiOrigin = 'http://127.0.0.1:8233';
const h = useHarness({ api: { codecCorsOrigins: [uiOrigin] } });
const canary = `canary-${randomUUID()}`;
let history: { metadata: Record<string, string>; data: string }[];
const plain = {
  payloads: [
    {
      metadata: { encoding: Buffer.from('json/plain').toString('base64') },
      data: Buffer.from(JSON.stringify(canary)).toString('base64'),
    },
  ],
};

beforeAll(async () => {
  const run = await createRun(h.api, h.seed);
  await expectStatus(
    toolCallUntilAnswered(h.api, run, 'c1', {
      tool: 'Read',
      arguments: { file_path: `/srv/${canary}` },
    }),
    200,
  );
  const workflowId = gateWorkflowId(asSessionId(run.session_id), asToolCallId('c1'));
  const stored = await closedHistory(h.api.config.temporal, workflowId);
  assert.ok(!stored.includes(canary), 'the history as stored is ciphertext');
  history = payloadsOf(JSON.parse(stored));
  assert.ok(history.length >= 2);
});

type Credential = { token?: string; cookie?: string };

function codec(operation: 'decode' | 'encode', who: Credential, body: unknown) {
  return h.api.call('POST', `/codec/${operation}`, {
    ...(who.token && { token: who.token }),
    headers: { ...(who.cookie && { cookie: who.cookie }), origin: uiOrigin },
    body,
  });
}

/** Both operations refused with `status` as problem+json; no payload opens. */
async function assertRefused(who: Credential, status: 401 | 403) {
  for (const [operation, body] of [
    ['decode', { payloads: history }],
    ['encode', plain],
  ] as const) {
    const answer = await codec(operation, who, body);
    assert.equal(answer.status, status, `${operation}: ${JSON.stringify(answer.body)}`);
    assert.match(answer.headers.get('content-type') ?? '', /^application\/problem\+json/);
    assert.equal(answer.body.payloads, undefined, 'no payload comes back');
    assert.ok(!JSON.stringify(answer.body).includes(canary));
  }
}

async function member(workspace: string, role: 'member' | 'approver' | 'admin') {
  const created = await expectStatus(
    h.api.call('POST', `/v1/workspaces/${workspace}/members`, {
      token: h.api.operatorKey,
      body: { name: `${role}-${randomUUID().slice(0, 6)}`, role },
    }),
    201,
  );
  return { user_id: created.user_id as string, token: created.user_token as string };
}

async function webSessionOf(token: string): Promise<string> {
  const cookie = await signInOverHttp(h.api.url, token);
  assert.ok(cookie, 'signed in');
  return cookie;
}

/** What the decoded payloads say, as text. */
function opened(body: { payloads: { data: string }[] }): string {
  return body.payloads.map((p) => Buffer.from(p.data, 'base64').toString('utf8')).join('\n');
}

describe('the payload codec refuses every caller but the operator', () => {
  test('no credential: 401', async () => {
    await assertRefused({}, 401);
  });

  test("a runner's session token, even of the run the payloads belong to: 403", async () => {
    const run = await createRun(h.api, h.seed);
    await assertRefused({ token: run.session_token }, 403);
  });

  test("a member's user token: 403", async () => {
    const { token } = await member(h.seed.workspace, 'member');
    await assertRefused({ token }, 403);
  });

  test("an admin's user token as Bearer: 403", async () => {
    await assertRefused({ token: h.seed.admin.token }, 403);
  });

  test("an approver's web session: 403", async () => {
    const { token } = await member(h.seed.workspace, 'approver');
    await assertRefused({ cookie: await webSessionOf(token) }, 403);
  });

  test("an admin's web session of the payloads' own workspace: 403", async () => {
    const { token } = await member(h.seed.workspace, 'admin');
    await assertRefused({ cookie: await webSessionOf(token) }, 403);
  });

  test("a suspended admin's web session counts as no sign-in: 401", async () => {
    const admin = await member(h.seed.workspace, 'admin');
    const cookie = await webSessionOf(admin.token);
    await expectStatus(
      h.api.call('PATCH', `/v1/workspaces/${h.seed.workspace}/members/${admin.user_id}`, {
        token: h.api.operatorKey,
        body: { status: 'suspended' },
      }),
      200,
    );
    await assertRefused({ cookie }, 401);
  });

  test("an expired admin's web session counts as no sign-in: 401", async () => {
    const { token } = await member(h.seed.workspace, 'admin');
    const cookie = await webSessionOf(token);
    const sessionId = cookie.slice('fg_session='.length);
    const { rowCount } = await h.db.query(
      `update web_sessions set created_at = now() - interval '9 hours',
         expires_at = now() - interval '1 hour'
       where id_hash = $1`,
      [hashToken(sessionId)],
    );
    assert.equal(rowCount, 1);
    await assertRefused({ cookie }, 401);
  });

  test("an admin of another workspace, posting workspace A's payloads from its history: 403", async () => {
    const other = await seedWorkspace(h.api);
    await assertRefused({ cookie: await webSessionOf(other.admin.token) }, 403);
  });
});

describe('the operator decodes and encodes', () => {
  test('with the operator key: the arguments open, and what it encodes decodes back', async () => {
    const decoded = await expectStatus(
      codec('decode', { token: h.api.operatorKey }, { payloads: history }),
      200,
    );
    assert.ok(opened(decoded).includes(`/srv/${canary}`));
    const encoded = await expectStatus(codec('encode', { token: h.api.operatorKey }, plain), 200);
    assert.ok(!JSON.stringify(encoded).includes(plain.payloads[0]!.data));
    const back = await expectStatus(codec('decode', { token: h.api.operatorKey }, encoded), 200);
    assert.equal(opened(back), JSON.stringify(canary));
  });

  test("with the operator's web session, from the Temporal UI's origin: decodes and encodes; signing out ends it", async () => {
    const cookie = await webSessionOf(h.api.operatorKey);
    const decoded = await codec('decode', { cookie }, { payloads: history });
    assert.equal(decoded.status, 200, JSON.stringify(decoded.body));
    assert.equal(decoded.headers.get('access-control-allow-origin'), uiOrigin);
    assert.equal(decoded.headers.get('access-control-allow-credentials'), 'true');
    assert.ok(opened(decoded.body).includes(`/srv/${canary}`));
    await expectStatus(codec('encode', { cookie }, plain), 200);

    const { rows } = await h.db.query(
      'select member_id, operator_key_binding from web_sessions where id_hash = $1',
      [hashToken(cookie.slice('fg_session='.length))],
    );
    assert.equal(rows[0].member_id, null);
    assert.ok(!rows[0].operator_key_binding.includes(Buffer.from(h.api.operatorKey)));

    const loginPage = await fetch(`${h.api.url}/login`, { headers: { cookie } });
    const csrf = /name="csrf" value="([^"]+)"/.exec(await loginPage.text())?.[1];
    assert.ok(csrf);
    const signedOut = await fetch(`${h.api.url}/logout`, {
      method: 'POST',
      redirect: 'manual',
      headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ csrf }).toString(),
    });
    assert.equal(signedOut.status, 303);
    await assertRefused({ cookie }, 401);
  });

  test('an operator web session opened under another operator key opens nothing', async () => {
    const config = testConfig();
    const other = await startTestApi({
      eagerStart: false,
      api: { ...config.api, operatorKey: `fgo_${randomUUID()}` },
    });
    try {
      const cookie = await signInOverHttp(other.url, other.operatorKey);
      assert.ok(cookie, 'signed in with the other key');
      await assertRefused({ cookie }, 401);
    } finally {
      await other.close();
    }
  });
});
