/**
 * OAuth 2.1 for the remote MCP endpoint, as the MCP authorization spec has it: the MCP SDK's own
 * client discovers the gate's authorization server, registers, and sends a person (signing in at
 * the development identity provider, in Chromium) to pick one of their workspace's run profiles;
 * the token it gets is that run's, for `/mcp` only. Then what a hostile client or a race tries.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, test } from 'vitest';
import type { Browser, BrowserContext } from 'playwright-core';
import { closeContexts, sharedChromium } from '../support/browser-pages.js';
import { auth, UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { verifyMcpAccessToken } from '../../src/application/mcp-oauth/tokens.js';
import {
  startDevIdentityProvider,
  type DevIdentityProvider,
  type DevPerson,
} from '../../tools/devstack/identity-provider.js';
import {
  MemoryOAuthClient,
  pkcePair,
  startRedirectListener,
  type RedirectListener,
} from '../support/mcp-oauth-client.js';
import { startTestApi, type TestApi } from '../support/api.js';
import { testConfig } from '../support/env.js';
import { signInAtProvider, startOidcGate, type OidcGate } from '../support/oidc-gate.js';
import { freeLoopbackPort } from '../../tools/devstack/free-port.js';
import { expectStatus, seedWorkspace, type Seed } from '../support/seed.js';
import { initializeRequest } from '../support/raw-mcp.js';

const developers = `developers-${randomUUID()}`;
const person = (subject: string, name: string): DevPerson => ({
  subject: `${subject}-${randomUUID()}`,
  name,
  email: `${subject}-${randomUUID()}@acme.test`,
  groups: [developers],
});
const dana = person('dana', 'Dana Developer');
const sid = person('sid', 'Sid Suspended');

let idp: DevIdentityProvider;
let gate: OidcGate;
let seed: Seed;
let other: Seed;
let profileId: string;
let foreignProfileId: string;
let browser: Browser;
let listener: RedirectListener;
/** The same gate (one database) reached under another public URL: another resource. */
let elsewhere: TestApi;
const contexts: BrowserContext[] = [];
const clients: Client[] = [];

const url = (path: string) => `${gate.api.url}${path}`;
const mcpUrl = () => url('/mcp');

async function newContext(): Promise<BrowserContext> {
  const context = await browser.newContext();
  contexts.push(context);
  return context;
}

async function createProfile(s: Seed, name: string): Promise<string> {
  const created = await expectStatus(
    gate.api.call('POST', `/v1/workspaces/${s.workspace}/run-profiles`, {
      token: s.admin.token,
      body: {
        name,
        description: 'reads and Bash, as the default policy has it',
        policy_id: s.policyId,
        tools: { bundles: [s.bundleId] },
        budget: { max_tokens: 50_000 },
        autonomy: 'supervised',
      },
    }),
    201,
  );
  return created.id as string;
}

/** A browser signed in at the provider as this person. */
async function signedInBrowser(who: DevPerson): Promise<BrowserContext> {
  const context = await newContext();
  await signInAtProvider(context, gate.api.url, who);
  return context;
}

/** The SDK client registers and starts an authorization; the URL it would open. */
async function startedAuthorization(client: MemoryOAuthClient): Promise<URL> {
  assert.equal(await auth(client, { serverUrl: mcpUrl() }), 'REDIRECT');
  assert.ok(client.authorizationUrl);
  return client.authorizationUrl;
}

/**
 * The consent step in a signed-in browser, driven over HTTP with its cookies: the authorization
 * URL, the consent page's CSRF value, the post. Answers where the gate sent the browser.
 */
async function consent(
  context: BrowserContext,
  authorizationUrl: string,
  form: Record<string, string>,
): Promise<{ status: number; location: string; page: string }> {
  const started = await context.request.get(authorizationUrl, { maxRedirects: 0 });
  const consentPath = started.headers().location ?? '';
  if (!consentPath.startsWith('/oauth/consent/')) {
    return { status: started.status(), location: consentPath, page: await started.text() };
  }
  const pageAnswer = await context.request.get(url(consentPath));
  const page = await pageAnswer.text();
  const csrf = /name="csrf" value="([^"]+)"/.exec(page)?.[1] ?? '';
  const posted = await context.request.post(url(consentPath), {
    form: { csrf, ...form },
    maxRedirects: 0,
  });
  return {
    status: posted.status(),
    location: posted.headers().location ?? '',
    page: await posted.text(),
  };
}

/** A code for this client, consented to by the browser's person with the given profile. */
async function codeFor(context: BrowserContext, client: MemoryOAuthClient, profile = profileId) {
  const authorizationUrl = await startedAuthorization(client);
  const answer = await consent(context, authorizationUrl.href, { decision: 'allow', profile });
  assert.equal(answer.status, 303, answer.page);
  const code = new URL(answer.location).searchParams.get('code');
  assert.ok(code, answer.location);
  return code;
}

/** A client that has finished the flow: registered, authorized, holding tokens. */
async function authorizedClient(context: BrowserContext): Promise<MemoryOAuthClient> {
  const client = new MemoryOAuthClient(listener.url);
  const code = await codeFor(context, client);
  assert.equal(await auth(client, { serverUrl: mcpUrl(), authorizationCode: code }), 'AUTHORIZED');
  return client;
}

async function tokenRequest(fields: Record<string, string>) {
  const response = await fetch(url('/oauth/token'), {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(fields).toString(),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

/** An MCP `initialize` at a gate's `/mcp` with this bearer: its status and challenge. */
async function initializeWith(baseUrl: string, token: string) {
  const response = await fetch(`${baseUrl}/mcp`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    },
    body: JSON.stringify(initializeRequest),
  });
  await response.body?.cancel();
  return { status: response.status, challenge: response.headers.get('www-authenticate') ?? '' };
}

/** A 401 that names the resource's metadata and says the token was refused. */
function assertRefused(answer: { status: number; challenge: string }, baseUrl = gate.api.url) {
  assert.equal(answer.status, 401);
  assert.match(answer.challenge, /^Bearer /);
  assert.match(answer.challenge, /error="invalid_token"/);
  assert.ok(
    answer.challenge.includes(
      `resource_metadata="${baseUrl}/.well-known/oauth-protected-resource/mcp"`,
    ),
    answer.challenge,
  );
}

const runOf = (token: string, resource = mcpUrl()) =>
  verifyMcpAccessToken(gate.db, token, resource);

async function memberIdOf(who: DevPerson, workspace = seed.workspace): Promise<string> {
  const { rows } = await gate.db.query<{ id: string }>(
    `select m.id from members m join people p on p.id = m.person_id
     where p.subject = $1 and m.workspace_id = $2`,
    [who.subject, workspace],
  );
  assert.ok(rows[0], `${who.name} is no member`);
  return rows[0].id;
}

describe('OAuth for the remote MCP endpoint', () => {
  beforeAll(async () => {
    gate = await startOidcGate(async (redirectUri) => {
      idp = await startDevIdentityProvider({ redirectUri, people: [dana, sid] });
      return idp;
    });
    seed = await seedWorkspace(gate.api);
    other = await seedWorkspace(gate.api);
    await expectStatus(
      gate.api.call('PUT', `/v1/workspaces/${seed.workspace}/identity`, {
        token: gate.api.operatorKey,
        body: { roles: { [developers]: 'member' } },
      }),
      200,
    );
    profileId = await createProfile(seed, 'Everyday');
    foreignProfileId = await createProfile(other, 'Elsewhere');
    listener = await startRedirectListener();
    const port = await freeLoopbackPort();
    const base = testConfig();
    elsewhere = await startTestApi(
      { api: { ...base.api, publicUrl: `http://localhost:${port}` } },
      { port },
    );
    browser = await sharedChromium();
  });
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close()));
    await Promise.all(contexts.map((c) => c.close()));
    await elsewhere.close();
    await closeContexts(browser);
    await listener.close();
    await gate.close();
    await idp.close();
  });

  test("the SDK client's own flow: discovery from /mcp's 401, registration, PKCE, a person signs in and picks a run profile, and the token acts for that run only", async () => {
    const client = new MemoryOAuthClient(listener.url);
    const first = new StreamableHTTPClientTransport(new URL(mcpUrl()), { authProvider: client });
    await assert.rejects(
      new Client({ name: 'oauth-test', version: '1.0.0' }).connect(first),
      UnauthorizedError,
    );
    const authorizationUrl = client.authorizationUrl;
    assert.ok(authorizationUrl, 'the 401 led the client to the authorization endpoint');
    assert.ok(client.information?.client_id, 'registered dynamically');
    assert.equal(authorizationUrl.searchParams.get('code_challenge_method'), 'S256');
    assert.equal(authorizationUrl.searchParams.get('resource'), mcpUrl());

    // The person's browser: not signed in, sent through the company sign-in and back.
    const page = await (await newContext()).newPage();
    await page.goto(authorizationUrl.href);
    await page.locator('#oidc-sign-in').click();
    await page.getByRole('button', { name: new RegExp(`^${dana.name}`) }).click();
    await page.waitForURL(/\/oauth\/consent\//);
    assert.match(await page.locator('main').innerText(), /Connect Test MCP client[\s\S]*Everyday/);
    const redirected = listener.next();
    await page.getByRole('button', { name: 'Allow' }).click();
    const query = await redirected;
    assert.equal(query.get('iss'), gate.api.url);
    const code = query.get('code');
    assert.ok(code);

    await first.finishAuth(code);
    const tokens = client.saved;
    assert.ok(tokens?.access_token && tokens.refresh_token);
    assert.ok((tokens.expires_in ?? 0) > 0 && (tokens.expires_in ?? 0) <= 600);

    const transport = new StreamableHTTPClientTransport(new URL(mcpUrl()), {
      authProvider: client,
    });
    const mcp = new Client({ name: 'oauth-test', version: '1.0.0' });
    await mcp.connect(transport);
    clients.push(mcp);
    await mcp.listTools();
    const run = await runOf(tokens.access_token);
    assert.ok(run, 'the token acts for a run');
    assert.equal(run.invoked_by, await memberIdOf(dana));
    assert.equal(run.workspace_id, seed.workspace);
    assert.match(run.session_id, /^mcp-/);
    const session = await gate.db.query<{ run_id: string }>(
      'select run_id from mcp_sessions where id = $1',
      [transport.sessionId],
    );
    assert.equal(session.rows[0]?.run_id, run.id, "the MCP session is that run's");
    assert.deepEqual(
      run.toolset.map((t) => t.name).sort(),
      ['Bash', 'Grep', 'Read'],
      "the profile's tools",
    );
    // No token is stored as itself: only digests.
    const { rows } = await gate.db.query(
      `select 1 from oauth_tokens where encode(token_hash, 'escape') like '%' || $1 || '%'`,
      [tokens.access_token.slice(5, 20)],
    );
    assert.equal(rows.length, 0);
  });

  test('a token for another resource, an expired one, and one of a revoked run: 401 with WWW-Authenticate', async () => {
    const context = await signedInBrowser(dana);
    const client = await authorizedClient(context);
    const token = client.saved?.access_token ?? '';
    const run = await runOf(token);
    assert.ok(run);
    assert.equal((await initializeWith(gate.api.url, token)).status, 200);
    assertRefused(await initializeWith(elsewhere.url, token), elsewhere.config.api.publicUrl);

    const expired = await authorizedClient(context);
    await gate.db.query(
      `update oauth_tokens set expires_at = now() - interval '1 second'
       where token_hash = sha256(convert_to($1, 'utf8'))`,
      [expired.saved?.access_token ?? ''],
    );
    assertRefused(await initializeWith(gate.api.url, expired.saved?.access_token ?? ''));

    await expectStatus(
      gate.api.call('POST', `/v1/runs/${run.id}/revoke`, { token: gate.api.operatorKey }),
      200,
    );
    assertRefused(await initializeWith(gate.api.url, token));
    const refreshed = await tokenRequest({
      grant_type: 'refresh_token',
      refresh_token: client.saved?.refresh_token ?? '',
      client_id: client.information?.client_id ?? '',
    });
    assert.equal(refreshed.status, 400);
    assert.equal(refreshed.body.error, 'invalid_grant');

    // Without a token: the challenge alone, which is where a client starts.
    const bare = await fetch(mcpUrl(), { method: 'POST' });
    assert.equal(bare.status, 401);
    assert.equal(
      bare.headers.get('www-authenticate'),
      `Bearer resource_metadata="${gate.api.url}/.well-known/oauth-protected-resource/mcp"`,
    );
  });

  test('20 concurrent refreshes of one refresh token leave exactly one valid successor and refuse no client; a refresh token used again past the grace ends the grant', async () => {
    const client = await authorizedClient(await signedInBrowser(dana));
    const refreshToken = client.saved?.refresh_token ?? '';
    const clientId = client.information?.client_id ?? '';
    const answers = await Promise.all(
      Array.from({ length: 20 }, () =>
        tokenRequest({
          grant_type: 'refresh_token',
          refresh_token: refreshToken,
          client_id: clientId,
        }),
      ),
    );
    assert.deepEqual(
      answers.map((a) => a.status),
      Array(20).fill(200),
      JSON.stringify(answers.find((a) => a.status !== 200)?.body),
    );
    const successors = new Set(
      answers.map((a) => JSON.stringify([a.body.access_token, a.body.refresh_token])),
    );
    assert.equal(successors.size, 1, 'every one got the same successor');
    const first = answers[0]?.body ?? {};
    assert.notEqual(first.refresh_token, refreshToken);
    assert.ok(await runOf(String(first.access_token)));
    const { rows } = await gate.db.query<{ live: number }>(
      `select count(*)::int as live from oauth_tokens t
       where t.grant_id = (select grant_id from oauth_tokens where token_hash = sha256(convert_to($1, 'utf8')))
         and t.kind = 'refresh' and t.used_at is null`,
      [refreshToken],
    );
    assert.equal(rows[0]?.live, 1, 'exactly one refresh token of the grant is unused');

    // Past the grace, the old token again is a theft: the grant ends, successor and all.
    await gate.db.query(
      `update oauth_tokens set used_at = now() - interval '1 hour'
       where token_hash = sha256(convert_to($1, 'utf8'))`,
      [refreshToken],
    );
    const replayed = await tokenRequest({
      grant_type: 'refresh_token',
      refresh_token: refreshToken,
      client_id: clientId,
    });
    assert.equal(replayed.status, 400);
    assert.equal(replayed.body.error, 'invalid_grant');
    assert.equal(await runOf(String(first.access_token)), null, 'the successor ended with it');
    const successorRefresh = await tokenRequest({
      grant_type: 'refresh_token',
      refresh_token: String(first.refresh_token),
      client_id: clientId,
    });
    assert.equal(successorRefresh.body.error, 'invalid_grant');
  });

  test('a redirect_uri the client did not register is refused on our page, never followed', async () => {
    const client = new MemoryOAuthClient(listener.url);
    const authorizationUrl = await startedAuthorization(client);
    authorizationUrl.searchParams.set('redirect_uri', 'https://attacker.example/cb');
    const answer = await fetch(authorizationUrl, { redirect: 'manual' });
    assert.equal(answer.status, 400);
    assert.equal(answer.headers.get('location'), null);
    assert.match(await answer.text(), /redirect_uri is not one this client registered/);
  });

  test('an authorization without PKCE, with plain PKCE, of another type or for another resource is refused on our page, never sent on', async () => {
    // Anyone may register a client with any redirect URI: a refusal sent there before a person
    // has seen who asks would make the gate a redirector for whoever registered it.
    const client = new MemoryOAuthClient(listener.url);
    const authorizationUrl = await startedAuthorization(client);
    const changed = (edit: (params: URLSearchParams) => void) => {
      const url = new URL(authorizationUrl);
      edit(url.searchParams);
      return url;
    };
    for (const [request, field, why] of [
      [
        changed((p) => {
          p.set('code_challenge_method', 'plain');
        }),
        'code_challenge_method',
        /S256/,
      ],
      [
        changed((p) => {
          p.delete('code_challenge');
          p.delete('code_challenge_method');
        }),
        'code_challenge',
        /code_challenge is required/,
      ],
      [
        changed((p) => {
          p.set('response_type', 'token');
        }),
        'response_type',
        /must be code/,
      ],
      [
        changed((p) => {
          p.set('resource', 'https://elsewhere.example/mcp');
        }),
        'resource',
        /resource must be/,
      ],
    ] as const) {
      const answer = await fetch(request, { redirect: 'manual' });
      assert.equal(answer.status, 400, `${field}: refused here`);
      assert.equal(answer.headers.get('location'), null, `${field}: never sent on`);
      // A person's browser is told on a page of ours, naming the parameter.
      const page = await answer.text();
      assert.match(page, why);
      assert.ok(page.includes(field), `${field} is named`);
    }
    // And a token request without the verifier is refused.
    const code = await codeFor(await signedInBrowser(dana), client);
    const noVerifier = await tokenRequest({
      grant_type: 'authorization_code',
      code,
      client_id: client.information?.client_id ?? '',
      redirect_uri: listener.url,
    });
    assert.equal(noVerifier.body.error, 'invalid_request');
    const wrongVerifier = await tokenRequest({
      grant_type: 'authorization_code',
      code,
      code_verifier: pkcePair().verifier,
      client_id: client.information?.client_id ?? '',
      redirect_uri: listener.url,
    });
    assert.equal(wrongVerifier.body.error, 'invalid_grant');
  });

  test('a code used twice revokes the tokens issued from it', async () => {
    const client = new MemoryOAuthClient(listener.url);
    const code = await codeFor(await signedInBrowser(dana), client);
    assert.equal(
      await auth(client, { serverUrl: mcpUrl(), authorizationCode: code }),
      'AUTHORIZED',
    );
    const token = client.saved?.access_token ?? '';
    assert.ok(await runOf(token));
    const again = await tokenRequest({
      grant_type: 'authorization_code',
      code,
      code_verifier: client.verifier,
      client_id: client.information?.client_id ?? '',
      redirect_uri: listener.url,
    });
    assert.equal(again.status, 400);
    assert.equal(again.body.error, 'invalid_grant');
    assert.equal(await runOf(token), null, 'the first redemption’s token is revoked');
  });

  test("client B cannot redeem client A's code; A still can", async () => {
    const a = new MemoryOAuthClient(listener.url);
    const code = await codeFor(await signedInBrowser(dana), a);
    const b = new MemoryOAuthClient(listener.url);
    await startedAuthorization(b);
    const stolen = await tokenRequest({
      grant_type: 'authorization_code',
      code,
      code_verifier: a.verifier,
      client_id: b.information?.client_id ?? '',
      redirect_uri: listener.url,
    });
    assert.equal(stolen.status, 400);
    assert.equal(stolen.body.error, 'invalid_grant');
    assert.equal(await auth(a, { serverUrl: mcpUrl(), authorizationCode: code }), 'AUTHORIZED');
    assert.ok(await runOf(a.saved?.access_token ?? ''));
  });

  test("a member of one workspace cannot pick another workspace's profile: nothing is created", async () => {
    const context = await signedInBrowser(dana);
    const client = new MemoryOAuthClient(listener.url);
    const before = await gate.db.query(
      'select count(*)::int as n from runs where workspace_id = $1',
      [other.workspace],
    );
    const answer = await consent(context, (await startedAuthorization(client)).href, {
      decision: 'allow',
      profile: foreignProfileId,
    });
    assert.equal(answer.status, 400);
    assert.match(answer.page, /pick one of the profiles offered/);
    const after = await gate.db.query(
      'select count(*)::int as n from runs where workspace_id = $1',
      [other.workspace],
    );
    assert.deepEqual(after.rows, before.rows);
    const grants = await gate.db.query('select 1 from oauth_grants where profile_id = $1', [
      foreignProfileId,
    ]);
    assert.equal(grants.rows.length, 0);
  });

  test('a person who declines sends the client access_denied, and no run is created', async () => {
    const client = new MemoryOAuthClient(listener.url);
    const answer = await consent(
      await signedInBrowser(dana),
      (await startedAuthorization(client)).href,
      {
        decision: 'deny',
      },
    );
    assert.equal(answer.status, 303);
    assert.equal(new URL(answer.location).searchParams.get('error'), 'access_denied');
  });

  test('a suspended member’s OAuth tokens end: the access token acts for nothing and the refresh is refused', async () => {
    const client = await authorizedClient(await signedInBrowser(sid));
    assert.ok(await runOf(client.saved?.access_token ?? ''));
    await expectStatus(
      gate.api.call('PATCH', `/v1/workspaces/${seed.workspace}/members/${await memberIdOf(sid)}`, {
        token: gate.api.operatorKey,
        body: { status: 'suspended' },
      }),
      200,
    );
    assertRefused(await initializeWith(gate.api.url, client.saved?.access_token ?? ''));
    const refreshed = await tokenRequest({
      grant_type: 'refresh_token',
      refresh_token: client.saved?.refresh_token ?? '',
      client_id: client.information?.client_id ?? '',
    });
    assert.equal(refreshed.body.error, 'invalid_grant');
  });

  test("a changed run profile is announced to its runs' clients (tools/list_changed); the run keeps what it froze", async () => {
    const client = await authorizedClient(await signedInBrowser(dana));
    const run = await runOf(client.saved?.access_token ?? '');
    assert.ok(run);
    const mcp = new Client({ name: 'oauth-test', version: '1.0.0' });
    await mcp.connect(
      new StreamableHTTPClientTransport(new URL(mcpUrl()), { authProvider: client }),
    );
    clients.push(mcp);
    const changed = new Promise<void>((resolve) => {
      mcp.setNotificationHandler(ToolListChangedNotificationSchema, () => {
        resolve();
      });
    });
    const before = await mcp.listTools();
    // The notice stream is open once the client has listed.
    await new Promise((resolve) => setTimeout(resolve, 300));
    await expectStatus(
      gate.api.call('PUT', `/v1/workspaces/${seed.workspace}/run-profiles/${profileId}`, {
        token: seed.admin.token,
        body: {
          name: 'Everyday',
          policy_id: seed.policyId,
          tools: { bundles: [] },
          budget: { max_tokens: 1000 },
          autonomy: 'supervised',
        },
      }),
      200,
    );
    await changed;
    assert.deepEqual(await mcp.listTools(), before);
    assert.equal(
      (await runOf(client.saved?.access_token ?? ''))?.toolset_digest,
      run.toolset_digest,
    );
  });

  test('a client revoking its refresh token ends its grant: the access token with it (RFC 7009)', async () => {
    const client = await authorizedClient(await signedInBrowser(dana));
    const clientId = client.information?.client_id ?? '';
    const revoke = (fields: Record<string, string>) =>
      fetch(url('/oauth/revoke'), {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams(fields).toString(),
      });
    // Another client cannot end it.
    const stranger = new MemoryOAuthClient(listener.url);
    await startedAuthorization(stranger);
    const token = client.saved?.refresh_token ?? '';
    await revoke({ token, client_id: stranger.information?.client_id ?? '' });
    assert.ok(await runOf(client.saved?.access_token ?? ''));
    assert.equal((await revoke({ token, client_id: clientId })).status, 200);
    assertRefused(await initializeWith(gate.api.url, client.saved?.access_token ?? ''));
  });

  test("the authorization server's metadata offers PKCE S256 only, and a browser's preflight is answered", async () => {
    const metadata = (await (
      await fetch(url('/.well-known/oauth-authorization-server'))
    ).json()) as Record<string, unknown>;
    assert.equal(metadata.issuer, gate.api.url);
    assert.deepEqual(metadata.code_challenge_methods_supported, ['S256']);
    assert.deepEqual(metadata.grant_types_supported, ['authorization_code', 'refresh_token']);
    const resource = (await (
      await fetch(url('/.well-known/oauth-protected-resource/mcp'))
    ).json()) as Record<string, unknown>;
    assert.deepEqual(resource.authorization_servers, [gate.api.url]);
    assert.equal(resource.resource, mcpUrl());
    const preflight = await fetch(url('/oauth/register'), {
      method: 'OPTIONS',
      headers: {
        origin: 'https://inspector.example',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'content-type',
      },
    });
    assert.equal(preflight.status, 204);
    assert.equal(preflight.headers.get('access-control-allow-origin'), '*');
  });

  test('registration refuses a redirect URI over plain http to another host, naming it', async () => {
    const answer = await fetch(url('/oauth/register'), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        redirect_uris: ['http://attacker.example/cb'],
        token_endpoint_auth_method: 'none',
      }),
    });
    assert.equal(answer.status, 400);
    const body = (await answer.json()) as Record<string, string>;
    assert.equal(body.error, 'invalid_redirect_uri');
    assert.match(body.error_description ?? '', /redirect_uris\[0\]/);
  });
});
