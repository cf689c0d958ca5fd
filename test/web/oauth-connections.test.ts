/**
 * Owners connect their own accounts through OAuth, against a real OAuth-protected MCP server
 * built from the MCP SDK's server-side auth (test/support/oauth-upstream.ts), with consent clicked
 * through in Chromium. The server lives on `localhost`, the gate on `127.0.0.1`: two sites, so the
 * way back from the authorization server arrives without the gate's SameSite=Strict cookie, as it
 * does in production.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, test } from 'vitest';
import pg from 'pg';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { closeContexts, sharedChromium } from '../support/browser-pages.js';
import { startTestApi, type HttpAnswer, type TestApi } from '../support/api.js';
import { testConfig } from '../support/env.js';
import { startOAuthUpstream, type OAuthUpstream } from '../support/oauth-upstream.js';
import {
  createRun,
  defaultPolicy,
  expectStatus,
  seedWorkspace,
  toolCall,
  untilAnswered,
  type CreatedRun,
  type Seed,
} from '../support/seed.js';
import { payloadsOf, storedHistory } from '../support/temporal.js';
import { asSessionId, asToolCallId, gateWorkflowId } from '../../src/domain/gate/ids.js';
import { CredentialSealer } from '../../src/broker/sealing.js';

const policy = {
  ...defaultPolicy,
  name: 'notes',
  rules: [
    { id: 'search', match: { tool: 'mcp__notes__search_notes' }, verdict: 'allow' },
    { id: 'create-asks', match: { tool: 'mcp__notes__create_note' }, verdict: 'require_approval' },
  ],
};

const apiLog: string[] = [];
/** Everything the gate answered in this file: API bodies and the pages' HTML. */
const answered: string[] = [];
let api: TestApi;
let seed: Seed;
let db: pg.Pool;
let upstream: OAuthUpstream;
let browser: Browser;
let owner: { user_id: string; token: string };
let other: { user_id: string; token: string };
let connectionId: string;
let authorizeUrl: string;
const calledIn: { run: CreatedRun; callIds: string[] }[] = [];

async function call<T = any>(
  method: string,
  path: string,
  options: { token?: string; body?: unknown } = {},
): Promise<HttpAnswer<T>> {
  const answer = await api.call<T>(method, path, options);
  answered.push(JSON.stringify(answer.body));
  return answer;
}
const op = () => ({ token: api.operatorKey });

/** The connection's custody as sealed in its row. */
async function heldCustody() {
  const { rows } = await db.query<{ sealed_credential: Buffer }>(
    'select sealed_credential from connections where id = $1',
    [connectionId],
  );
  const sealer = CredentialSealer.fromBase64(testConfig().sealingKey);
  return sealer.unsealOAuth(connectionId, sealer.fromStored(rows[0]!.sealed_credential));
}

async function addMember(name: string, role: 'member' | 'admin') {
  const created = await expectStatus(
    call('POST', `/v1/workspaces/${seed.workspace}/members`, { ...op(), body: { name, role } }),
    201,
  );
  return { user_id: created.user_id as string, token: created.user_token as string };
}

/** A browser signed in as a member, on the page `next` (one of the gate's own). */
async function signedIn(token: string): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext();
  const page = await context.newPage();
  page.on('response', (response) => {
    if (response.url().startsWith(api.url) && response.headers()['content-type']?.includes('html'))
      void response.text().then(
        (text) => answered.push(text),
        () => undefined,
      );
  });
  await page.goto(`${api.url}/login?next=/connections`);
  await page.fill('#token', token);
  await Promise.all([
    page.waitForURL(`${api.url}/connections`),
    page.getByRole('button', { name: 'Sign in' }).click(),
  ]);
  return { context, page };
}

async function connection() {
  return expectStatus(call('GET', `/v1/connections/${connectionId}`, op()), 200);
}

/** The gate's callback, as the authorization server sends the browser back to it. */
const isCallback = (url: URL) =>
  url.origin === api.url && url.pathname === '/connections/oauth/callback';

/**
 * The owner goes through the authorize page and the server's consent page, and lands on the
 * gate's callback without its cookie (the server is another site): the finish page, where nothing
 * has happened yet. Its URL is returned, so a test decides who opens it.
 */
async function consentedCallback(page: Page): Promise<string> {
  await page.goto(authorizeUrl);
  await page.click('#connect');
  await page.waitForURL(/^http:\/\/localhost:\d+\/authorize/);
  await Promise.all([
    page.waitForURL(isCallback),
    page.getByRole('button', { name: 'Allow' }).click(),
  ]);
  assert.equal(await page.locator('#finish').count(), 1);
  return page.url();
}

/**
 * Opens a callback URL as this browser (typed in, so the session cookie goes along) and shows
 * the outcome; from the finish page, should one be shown, it clicks through.
 */
async function openCallback(
  page: Page,
  callback: string,
): Promise<{ status: number; text: string }> {
  let response = await page.goto(callback);
  if ((await page.locator('#finish').count()) > 0) {
    [response] = await Promise.all([
      page.waitForResponse((r) => r.url() === `${api.url}/connections/oauth/callback`),
      page.click('#finish'),
    ]);
    await page.waitForLoadState();
  }
  return { status: response!.status(), text: await page.locator('main').innerText() };
}

/** The owner connects or reconnects in one go: authorize page, consent, back, finish. */
async function connectAsOwner(page: Page, name = 'notes') {
  await consentedCallback(page);
  // The way back came from another site, without the session cookie: one click finishes.
  const [response] = await Promise.all([
    page.waitForResponse((r) => r.url() === `${api.url}/connections/oauth/callback`),
    page.click('#finish'),
  ]);
  assert.equal(response.status(), 200);
  await page.waitForLoadState();
  assert.match(await page.locator('#notice').innerText(), new RegExp(`${name} is connected`));
}

function recordCall(run: CreatedRun, callId: string) {
  const known = calledIn.find((c) => c.run === run);
  if (known) known.callIds.push(callId);
  else calledIn.push({ run, callIds: [callId] });
}

/**
 * The call's final answer: a brokered call may answer 202 while its result is recorded. A 503
 * (Temporal or PostgreSQL past its bound on a loaded machine) is sent again, as a runner does,
 * for up to two minutes: beside another full suite a refused refresh's call was still evaluating
 * after one.
 */
async function executed(run: CreatedRun, callId: string, body: Record<string, unknown>) {
  recordCall(run, callId);
  const put = await untilAnswered(() => toolCall(api, run, callId, body), 120_000);
  answered.push(JSON.stringify(put.body));
  if (put.status === 200) return put.body;
  assert.equal(put.status, 202, JSON.stringify(put.body));
  return expectStatus(
    call('GET', `/v1/sessions/${run.session_id}/tool-calls/${callId}?wait=30`, {
      token: run.session_token,
    }),
    200,
  );
}

const search = { tool: 'mcp__notes__search_notes', arguments: { query: 'q' }, execute: true };
const create = {
  tool: 'mcp__notes__create_note',
  arguments: { title: 't', body: 'b' },
  execute: true,
};

const ownersRun = () =>
  createRun(api, seed, {
    invoked_by: owner.user_id,
    tools: { bundles: [], connections: [{ id: connectionId }] },
  });

/** Lets the owner's access token run out (it lives seconds), counted from the last one issued. */
async function tokenExpired() {
  await new Promise((resolve) => setTimeout(resolve, 3_200));
}

describe('OAuth connections', () => {
  let ownerBrowser: { context: BrowserContext; page: Page };

  beforeAll(async () => {
    api = await startTestApi(
      { approvalRecheckS: 1 },
      {
        atPublicUrl: true,
        logger: { level: 'trace', stream: { write: (line: string) => void apiLog.push(line) } },
      },
    );
    seed = await seedWorkspace(api, policy);
    db = new pg.Pool({ connectionString: testConfig().databaseUrl });
    upstream = await startOAuthUpstream({ accessTokenLifetimeS: 3 });
    browser = await sharedChromium();
    // Approval webhooks carry what the ledger holds; their payloads are searched for canaries.
    await expectStatus(
      call('POST', `/v1/workspaces/${seed.workspace}/webhooks`, {
        ...op(),
        body: { url: 'http://127.0.0.1:9/hooks', include_arguments: true },
      }),
      201,
    );
    owner = await addMember('olive', 'member');
    other = await addMember('mo', 'member');
    ownerBrowser = await signedIn(owner.token);
  });
  afterAll(async () => {
    await closeContexts(browser);
    await upstream.close();
    await api.close();
    await db.end();
  });

  test('an OAuth connection is created waiting for its owner: 201 awaiting_authorization with the gate page that authorizes it, and no tools yet', async () => {
    const created = await expectStatus(
      call('POST', '/v1/connections', {
        ...op(),
        body: {
          workspace: seed.workspace,
          name: 'notes',
          kind: 'personal',
          owner_user_id: owner.user_id,
          url: upstream.url,
          // Kept through every exchange (checked after a refresh); on localhost it changes nothing.
          credential: { type: 'oauth', scopes: ['notes'], private_network: true },
        },
      }),
      201,
    );
    connectionId = created.id;
    authorizeUrl = created.authorize_url;
    assert.equal(created.status, 'awaiting_authorization');
    assert.equal(authorizeUrl, `${api.url}/connections/${connectionId}/authorize`);
    assert.deepEqual(created.tools, []);
    assert.equal(created.auth_generation, 1);
    assert.equal(upstream.registrations, 0, 'nothing happens at the server until the owner comes');

    // A bad OAuth credential is a 400 naming its field.
    for (const [credential, field] of [
      [{ type: 'oauth', client_secret: 's' }, 'body.credential.client_secret'],
      [{ type: 'oauth', private_network: 'yes' }, 'body.credential.private_network'],
    ] as const) {
      const bad = await call('POST', '/v1/connections', {
        ...op(),
        body: {
          workspace: seed.workspace,
          name: 'other',
          kind: 'org',
          url: upstream.url,
          credential,
        },
      });
      assert.equal(bad.status, 400);
      assert.ok(
        bad.body.errors.some((e: { path: string }) => e.path === field),
        JSON.stringify(bad.body),
      );
    }
  });

  test("only the owner may authorize a personal connection: an admin's and another member's pages are refused", async () => {
    for (const who of [seed.admin, other]) {
      const { context, page } = await signedIn(who.token);
      const response = await page.goto(authorizeUrl);
      assert.equal(response?.status(), 403);
      assert.match(await page.locator('main').innerText(), /only by its owner/);
      await context.close();
    }
  });

  test('the callback is bound to the owner who started it: another member, an admin and the operator key cannot complete it; the owner can, once', async () => {
    const { page } = ownerBrowser;
    const callback = await consentedCallback(page);
    assert.equal(upstream.registrations, 1, 'the gate registered itself (RFC 7591)');
    assert.deepEqual(upstream.resources, [upstream.url], 'the resource indicator (RFC 8707)');

    for (const who of [other, seed.admin]) {
      const { context, page: theirs } = await signedIn(who.token);
      const refused = await openCallback(theirs, callback);
      assert.equal(refused.status, 403);
      assert.match(refused.text, /not started by you, was already used, or has expired/);
      await context.close();
    }
    const byOperator = await fetch(callback, {
      headers: { authorization: `Bearer ${api.operatorKey}` },
    });
    const operatorPage = await byOperator.text();
    answered.push(operatorPage);
    assert.match(operatorPage, /Finish connecting/, 'no session: nothing is completed');
    const posted = await fetch(`${api.url}/connections/oauth/callback`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${api.operatorKey}`,
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: new URL(callback).searchParams.toString(),
    });
    assert.equal(posted.status, 401);
    assert.equal((await connection()).status, 'awaiting_authorization');

    const done = await openCallback(page, callback);
    assert.equal(done.status, 200, done.text);
    assert.match(done.text, /notes is connected/);
    const active = await connection();
    assert.equal(active.status, 'active');
    assert.equal(active.auth_generation, 1, 'the first authorization keeps the generation');
    assert.deepEqual(active.tools.map((t: { name: string }) => t.name).sort(), [
      'mcp__notes__create_note',
      'mcp__notes__search_notes',
    ]);
    assert.deepEqual(active.scopes, ['notes']);

    const replayed = await openCallback(page, callback);
    assert.equal(replayed.status, 403, 'the state is single-use');
    const forged = new URL(callback);
    forged.searchParams.set('state', randomBytes(32).toString('base64url'));
    assert.equal((await openCallback(page, forged.href)).status, 403);
    assert.equal((await connection()).auth_generation, 1);
  });

  test('a brokered call carries the owner’s token: the upstream sees a token its server issued, nothing of the gate’s', async () => {
    const run = await ownersRun();
    const answer = await executed(run, 'search-1', search);
    assert.equal(answer.decision, 'allow', JSON.stringify(answer));
    assert.equal(answer.result.isError, undefined);
    const seen = upstream.calls.at(-1)!;
    assert.equal(seen.tool, 'search_notes');
    assert.ok(upstream.accessTokens.includes(seen.token), 'a token its server issued');
    for (const ours of [run.session_token, api.operatorKey, owner.token])
      assert.notEqual(seen.token, ours);
    const { rows } = await db.query('select last_used_at from connections where id = $1', [
      connectionId,
    ]);
    assert.ok(rows[0].last_used_at, 'the last use is recorded');
  });

  test('an expired access token is refreshed before the call, which works; the generation stays', async () => {
    const run = await ownersRun();
    const refreshes = upstream.refreshes;
    await tokenExpired();
    const answer = await executed(run, 'search-2', search);
    assert.equal(answer.decision, 'allow', JSON.stringify(answer));
    assert.equal(answer.result.isError, undefined, JSON.stringify(answer.result));
    assert.equal(upstream.refreshes, refreshes + 1);
    assert.equal(upstream.calls.at(-1)!.token, upstream.accessTokens.at(-1));
    assert.equal((await connection()).auth_generation, 1);
    // The operator's word on the server's network outlives the authorization and the refresh.
    assert.equal((await heldCustody()).private_network, true);
  });

  test('two calls finding the token expired at once never spend the single-use refresh token twice', async () => {
    const run = await ownersRun();
    const refreshes = upstream.refreshes;
    await tokenExpired();
    const answers = await Promise.all([
      executed(run, 'together-1', search),
      executed(run, 'together-2', search),
    ]);
    for (const answer of answers) assert.equal(answer.result?.isError, undefined);
    // One refresh serves both, unless the second call comes so late that the new 3 s token is
    // already in its last half: then it refreshes again, with the new refresh token.
    const made = upstream.refreshes - refreshes;
    assert.ok(made === 1 || made === 2, `${made} refreshes`);
    assert.equal(upstream.reusedRefreshTokens, 0);
  });

  test('a token the server refuses (401) is refreshed once and the call sent once more', async () => {
    const run = await ownersRun();
    const refreshes = upstream.refreshes;
    upstream.forgetAccessTokens();
    const answer = await executed(run, 'after-401', search);
    assert.equal(answer.decision, 'allow', JSON.stringify(answer));
    assert.equal(answer.result.isError, undefined, JSON.stringify(answer.result));
    assert.equal(upstream.refreshes, refreshes + 1);
  });

  test('the operator asks for reauthorization: a new authorize page, and nothing changes until the owner completes it', async () => {
    const again = await expectStatus(
      call('POST', `/v1/connections/${connectionId}/reauthorize`, {
        ...op(),
        body: { credential: { type: 'oauth' } },
      }),
      200,
    );
    assert.equal(again.authorize_url, authorizeUrl);
    assert.equal(again.auth_generation, 1);
    assert.equal(again.status, 'active');
    assert.equal((await heldCustody()).private_network, true, 'unchanged when not said');
    // The operator may take back, or give again, the word on the server's network: tokens stay.
    for (const privateNetwork of [false, true]) {
      await expectStatus(
        call('POST', `/v1/connections/${connectionId}/reauthorize`, {
          ...op(),
          body: { credential: { type: 'oauth', private_network: privateNetwork } },
        }),
        200,
      );
      const custody = await heldCustody();
      assert.equal(custody.private_network, privateNetwork || undefined);
      assert.ok(custody.tokens?.refresh_token, 'the tokens are kept');
    }
    const bearer = await call('POST', `/v1/connections/${connectionId}/reauthorize`, {
      ...op(),
      body: { credential: { type: 'bearer', token: 'pasted' } },
    });
    assert.equal(bearer.status, 409, 'the operator cannot paste a token into an OAuth connection');
  });

  test('an authorization not finished in time is refused, and the connection keeps its generation', async () => {
    const { page } = ownerBrowser;
    const callback = await consentedCallback(page);
    await db.query(
      `update oauth_authorizations set expires_at = now() - interval '1 second'
       where connection_id = $1 and used_at is null`,
      [connectionId],
    );
    const late = await openCallback(page, callback);
    assert.equal(late.status, 403);
    assert.match(late.text, /has expired/);
    const row = await connection();
    assert.deepEqual([row.status, row.auth_generation], ['active', 1]);
  });

  test('declining at the server changes nothing, and the page says so; a callback without its state is a 400', async () => {
    const { page } = ownerBrowser;
    await page.goto(authorizeUrl);
    await page.click('#connect');
    await page.waitForURL(/^http:\/\/localhost:\d+\/authorize/);
    await Promise.all([
      page.waitForURL(isCallback),
      page.getByRole('button', { name: 'Deny' }).click(),
    ]);
    assert.match(await page.locator('#declined').innerText(), /access_denied/);
    const row = await connection();
    assert.deepEqual([row.status, row.auth_generation], ['active', 1]);

    const partial = await fetch(`${api.url}/connections/oauth/callback?code=abc`);
    assert.equal(partial.status, 400);
    assert.match(await partial.text(), /That request was not understood/);
  });

  test('a reconnect while a call waits for approval moves the generation on, and that call refuses (binding)', async () => {
    const run = await ownersRun();
    const pending = await toolCall(api, run, 'create-1', create);
    assert.equal(pending.status, 202, JSON.stringify(pending.body));
    recordCall(run, 'create-1');
    const before = upstream.calls.length;

    await connectAsOwner(ownerBrowser.page);
    assert.equal((await connection()).auth_generation, 2);

    await expectStatus(
      call('POST', `/v1/approvals/${run.session_id}/create-1/decision`, {
        token: owner.token,
        body: { decision: 'approve' },
      }),
      200,
    );
    // A runner asks again while the gate is still evaluating the approved call: beside another
    // suite, its stages once took longer than one 20 s wait.
    const answer = await expectStatus(
      untilAnswered(
        () =>
          call('GET', `/v1/sessions/${run.session_id}/tool-calls/create-1?wait=20`, {
            token: run.session_token,
          }),
        90_000,
        [202, 503],
      ),
      200,
    );
    assert.equal(answer.decision, 'deny', JSON.stringify(answer));
    assert.equal(answer.source, 'binding');
    assert.match(answer.reason, /reauthorized since the run froze it/);
    assert.equal(upstream.calls.length, before, 'nothing reached the server');
  });

  test('a refresh the server refuses: the connection needs its owner, and its calls deny as binding with a reason the owner can act on', async () => {
    const run = await ownersRun();
    upstream.refuseRefreshes();
    upstream.forgetAccessTokens();
    const first = await executed(run, 'refused-1', search);
    assert.equal(first.decision, 'deny', JSON.stringify(first));
    assert.equal(first.source, 'binding');
    assert.match(first.reason, /needs its owner to reconnect it/);
    const row = await connection();
    assert.equal(row.status, 'needs_reauthorization');
    assert.match(row.status_reason, /refused the refresh token/);

    const next = await executed(run, 'refused-2', search);
    assert.equal(next.decision, 'deny');
    assert.equal(next.source, 'binding');
    assert.match(next.reason, /needs its owner to reconnect it/);

    const { page } = ownerBrowser;
    await page.goto(`${api.url}/connections`);
    assert.match(await page.locator('.status-reason').innerText(), /reconnect it/);
    assert.equal(await page.getByRole('link', { name: 'Reconnect' }).count(), 1);
  }, 300_000);

  test('disconnecting revokes the tokens at the server (RFC 7009) and marks the connection revoked', async () => {
    const { page } = ownerBrowser;
    await page.goto(`${api.url}/connections`);
    await page.getByRole('button', { name: 'Disconnect' }).click();
    await page.waitForLoadState();
    assert.match(await page.locator('#notice').innerText(), /revoked at the server/);
    assert.equal((await connection()).status, 'revoked');
    assert.equal(upstream.revoked.length, 2, 'the refresh token and the access token');
    for (const token of upstream.revoked) assert.ok(upstream.issued.includes(token));
  });

  test('an admin may revoke a personal connection (from its form), though never authorize it', async () => {
    const created = await expectStatus(
      call('POST', '/v1/connections', {
        ...op(),
        body: {
          workspace: seed.workspace,
          name: 'notes-2',
          kind: 'personal',
          owner_user_id: owner.user_id,
          url: upstream.url,
          credential: { type: 'oauth' },
        },
      }),
      201,
    );
    const { context, page } = await signedIn(seed.admin.token);
    await page.goto(`${api.url}/connections`);
    assert.equal(await page.getByText('notes-2').count(), 0, "another's personal connection");
    const csrf = await page.locator('header input[name="csrf"]').getAttribute('value');
    assert.equal((await page.goto(created.authorize_url))?.status(), 403);
    const revoked = await page.request.post(`${api.url}/connections/${created.id}/disconnect`, {
      form: { csrf: csrf! },
    });
    assert.equal(revoked.status(), 200);
    assert.match(await revoked.text(), /notes-2 is disconnected/);
    const row = await expectStatus(call('GET', `/v1/connections/${created.id}`, op()), 200);
    assert.equal(row.status, 'revoked');
    await context.close();
  });

  test('an org connection with a client given at creation: an admin connects it without registering a new client', async () => {
    const client = upstream.preRegister(`${api.url}/connections/oauth/callback`);
    const created = await expectStatus(
      call('POST', '/v1/connections', {
        ...op(),
        body: {
          workspace: seed.workspace,
          name: 'team-notes',
          kind: 'org',
          url: upstream.url,
          credential: { type: 'oauth', ...client },
        },
      }),
      201,
    );
    const registrations = upstream.registrations;
    const { context, page } = await signedIn(seed.admin.token);
    authorizeUrl = created.authorize_url;
    await connectAsOwner(page, 'team-notes');
    const row = await expectStatus(call('GET', `/v1/connections/${created.id}`, op()), 200);
    assert.equal(row.status, 'active');
    assert.equal(upstream.registrations, registrations, 'the given client was used');
    await page.goto(`${api.url}/connections`);
    await page.getByRole('button', { name: 'Revoke' }).click();
    await page.waitForLoadState();
    assert.match(await page.locator('#notice').innerText(), /revoked at the server/);
    await context.close();
  });

  test('canary tokens the server issued appear in no response, page, log line, ledger event, webhook or Temporal history', async () => {
    const canaries = upstream.issued;
    assert.ok(canaries.length >= 6, 'tokens were issued');
    const { rows: events } = await db.query<{ data: unknown }>(
      'select data from ledger_events where stream_id = any($1)',
      [calledIn.map((c) => c.run.session_id)],
    );
    assert.ok(events.length > 0);
    const histories: string[] = [];
    for (const { run, callIds } of calledIn) {
      for (const callId of callIds) {
        const history = await storedHistory(
          api.config.temporal,
          gateWorkflowId(asSessionId(run.session_id), asToolCallId(callId)),
        );
        const opened = await expectStatus(
          api.call('POST', '/codec/decode', {
            ...op(),
            body: { payloads: payloadsOf(JSON.parse(history)) },
          }),
          200,
        );
        histories.push(history, JSON.stringify(opened));
      }
    }
    const { rows: deliveries } = await db.query<{ payload: unknown }>(
      'select payload from webhook_deliveries where session_id = any($1)',
      [calledIn.map((c) => c.run.session_id)],
    );
    assert.ok(deliveries.length > 0, 'the approval was sent to the webhook');
    assert.ok(apiLog.length > 0 && histories.length > 0, 'there were logs and histories to search');
    const places = {
      webhooks: JSON.stringify(deliveries),
      responses: answered.join('\n'),
      logs: apiLog.join('\n'),
      ledger: JSON.stringify(events),
      histories: histories.join('\n'),
    };
    assert.doesNotMatch(places.logs, /code-[0-9a-f]{32}/, 'no authorization code in the logs');
    for (const canary of canaries)
      for (const [where, text] of Object.entries(places))
        assert.equal(text.includes(canary), false, `an issued secret is in the ${where}`);
  });
});
