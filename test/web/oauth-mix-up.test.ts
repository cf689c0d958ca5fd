/**
 * The mix-up defence (RFC 9207): a hostile authorization server bounces the owner to another one,
 * hoping the gate sends that server's code to the hostile token endpoint. The gate refuses, and
 * exchanges nothing with either server; a client it holds is presented to one issuer only.
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, test } from 'vitest';
import {
  AuthorizationRefusedError,
  finishAuthorization,
  startAuthorization,
  type OAuthConnectionDeps,
} from '../../src/application/oauth-connections.js';
import { brokerResolver } from '../../src/broker/address-reach.js';
import { OAuthFlowError } from '../../src/broker/oauth-client.js';
import { CredentialSealer } from '../../src/broker/sealing.js';
import { findMember, type Member } from '../../src/store/members.js';
import { createPool, type Pool } from '../../src/store/pool.js';
import { useHarness } from '../support/harness.js';
import { expectStatus } from '../support/seed.js';

const h = useHarness();

/** A small HTTP server of the test's: its handler, its origin, what it was asked. */
interface Site {
  url: string;
  asked: string[];
  server: Server;
}

async function site(
  handle: (
    path: URL,
    site: Site,
  ) => { status: number; headers?: Record<string, string>; body?: unknown },
): Promise<Site> {
  const self: Site = { url: '', asked: [], server: createServer() };
  self.server.on('request', (request, response) => {
    request.resume();
    const path = new URL(request.url ?? '/', self.url);
    self.asked.push(path.pathname);
    const { status, headers = {}, body } = handle(path, self);
    response.writeHead(status, { 'content-type': 'application/json', ...headers });
    response.end(body === undefined ? undefined : JSON.stringify(body));
  });
  await new Promise<void>((resolve) => self.server.listen(0, '127.0.0.1', resolve));
  self.url = `http://127.0.0.1:${(self.server.address() as AddressInfo).port}`;
  return self;
}

const metadataOf = (issuer: string, sendsIss: boolean) => ({
  issuer,
  authorization_endpoint: `${issuer}/authorize`,
  token_endpoint: `${issuer}/token`,
  registration_endpoint: `${issuer}/register`,
  response_types_supported: ['code'],
  code_challenge_methods_supported: ['S256'],
  authorization_response_iss_parameter_supported: sendsIss,
});

/** What the honest server's authorize endpoint answers: a code, with or without its `iss`. */
let honestSendsIss = true;
/** Whether the hostile server says its answers carry `iss`. */
let hostileSaysIss = true;
/** The issuer the lying server at /evil-as claims in its metadata. */
let liarClaims = '';
/** The authorization server the resource names. */
let named = '';

let honest: Site;
let hostile: Site;
let resource: Site;
let pool: Pool;
let deps: OAuthConnectionDeps;
let admin: Member;

beforeAll(async () => {
  honest = await site((path, self) => {
    if (path.pathname === '/.well-known/oauth-authorization-server')
      return { status: 200, body: metadataOf(self.url, true) };
    if (path.pathname === '/authorize') {
      const back = new URL(path.searchParams.get('redirect_uri')!);
      back.searchParams.set('code', 'code-the-honest-server-issued');
      back.searchParams.set('state', path.searchParams.get('state')!);
      if (honestSendsIss) back.searchParams.set('iss', self.url);
      return { status: 302, headers: { location: back.href } };
    }
    return { status: 400, body: { error: 'invalid_request' } };
  });
  hostile = await site((path, self) => {
    // The liar at /evil-as: it claims the honest server's name, its authorize endpoint too, and
    // keeps the token endpoint for itself.
    if (path.pathname === '/.well-known/oauth-authorization-server/evil-as')
      return {
        status: 200,
        body: {
          ...metadataOf(self.url, true),
          issuer: liarClaims,
          authorization_endpoint: `${honest.url}/authorize`,
        },
      };
    if (path.pathname === '/.well-known/oauth-authorization-server')
      return { status: 200, body: metadataOf(self.url, hostileSaysIss) };
    // The bounce: the owner is sent on to the honest server, the gate's request unchanged.
    if (path.pathname === '/authorize')
      return { status: 302, headers: { location: `${honest.url}/authorize${path.search}` } };
    return { status: 400, body: { error: 'invalid_request' } };
  });
  resource = await site((path, self) => {
    if (path.pathname.startsWith('/.well-known/oauth-protected-resource'))
      return { status: 200, body: { resource: `${self.url}/mcp`, authorization_servers: [named] } };
    return {
      status: 401,
      headers: {
        'www-authenticate': `Bearer resource_metadata="${self.url}/.well-known/oauth-protected-resource/mcp"`,
      },
    };
  });
  named = hostile.url;
  pool = createPool(h.api.config.databaseUrl);
  deps = {
    pool,
    sealer: CredentialSealer.fromBase64(h.api.config.sealingKey),
    publicUrl: h.api.config.api.publicUrl,
    resolve: brokerResolver(undefined),
  };
  admin = (await findMember(pool, h.seed.workspace, h.seed.admin.user_id))!;
});
afterAll(async () => {
  for (const each of [honest, hostile, resource]) each.server.close();
  await pool.end();
});

let count = 0;
async function oauthConnection(): Promise<string> {
  count += 1;
  const created = await expectStatus(
    h.api.call('POST', '/v1/connections', {
      token: h.api.operatorKey,
      body: {
        workspace: h.seed.workspace,
        name: `mixed-${count}`,
        kind: 'org',
        url: `${resource.url}/mcp`,
        credential: { type: 'oauth', client_id: 'gate', client_secret: 'canary-client-secret' },
      },
    }),
    201,
  );
  return created.id as string;
}

/** The owner's browser: from the authorize URL, through every redirect, to the gate's callback. */
async function bounced(authorizationUrl: URL): Promise<URL> {
  let at = authorizationUrl;
  for (let hops = 0; hops < 5; hops++) {
    if (at.pathname === '/connections/oauth/callback') return at;
    const response = await fetch(at, { redirect: 'manual' });
    await response.body?.cancel();
    at = new URL(response.headers.get('location')!, at);
  }
  throw new Error('no way back to the gate');
}

const exchanged = () =>
  [...honest.asked, ...hostile.asked].filter((path) => path === '/token' || path === '/register');

describe('an authorization server that bounces the owner to another', () => {
  test("the honest server's answer names itself: refused, its code exchanged nowhere", async () => {
    [honestSendsIss, hostileSaysIss] = [true, true];
    const id = await oauthConnection();
    const back = await bounced(await startAuthorization(deps, admin, id));
    assert.equal(back.searchParams.get('iss'), honest.url, 'the honest server named itself');
    // Arriving without the session cookie, the finish page carries the issuer on to the form post.
    const finishing = await fetch(`${h.api.url}/connections/oauth/callback${back.search}`);
    assert.equal(finishing.status, 200);
    assert.match(await finishing.text(), new RegExp(`name="iss" value="${honest.url}"`));
    const refused = await finishAuthorization(deps, admin, {
      code: back.searchParams.get('code')!,
      state: back.searchParams.get('state')!,
      iss: back.searchParams.get('iss')!,
    }).then(
      () => undefined,
      (err: unknown) => err,
    );
    assert.ok(refused instanceof AuthorizationRefusedError, String(refused));
    assert.match(refused.message, new RegExp(`comes from ${honest.url}, not from ${hostile.url}`));
    assert.deepEqual(exchanged(), []);
  });

  test('an answer without iss, from a server that says it sends one: refused', async () => {
    [honestSendsIss, hostileSaysIss] = [false, true];
    const id = await oauthConnection();
    const back = await bounced(await startAuthorization(deps, admin, id));
    const refused = await finishAuthorization(deps, admin, {
      code: back.searchParams.get('code')!,
      state: back.searchParams.get('state')!,
    }).then(
      () => undefined,
      (err: unknown) => err,
    );
    assert.ok(refused instanceof AuthorizationRefusedError, String(refused));
    assert.match(refused.message, /carries no issuer/);
    // The state is used up: the same answer again finds nothing.
    const again = await finishAuthorization(deps, admin, {
      code: back.searchParams.get('code')!,
      state: back.searchParams.get('state')!,
      iss: hostile.url,
    }).then(
      () => undefined,
      (err: unknown) => err,
    );
    assert.ok(again instanceof AuthorizationRefusedError);
    assert.match(again.message, /already used/);
    assert.deepEqual(exchanged(), []);
  });

  test('the operator-given client belongs to the first issuer: a resource that names another later is refused', async () => {
    [honestSendsIss, hostileSaysIss] = [true, true];
    named = honest.url;
    const id = await oauthConnection();
    await startAuthorization(deps, admin, id);
    named = hostile.url;
    const refused = await startAuthorization(deps, admin, id).then(
      () => undefined,
      (err: unknown) => err,
    );
    assert.ok(refused instanceof OAuthFlowError, String(refused));
    assert.match(refused.message, new RegExp(`belongs to ${honest.url}`));
    assert.deepEqual(exchanged(), []);
  });

  test('metadata that claims another issuer than the server it was fetched from: connecting is refused', async () => {
    [honestSendsIss, hostileSaysIss] = [true, true];
    named = `${hostile.url}/evil-as`;
    const honestAsked = honest.asked.length;
    // The honest server's name, and the liar's own origin without its path: neither is the URL.
    for (const claim of [honest.url, hostile.url]) {
      liarClaims = claim;
      const id = await oauthConnection();
      const refused = await startAuthorization(deps, admin, id).then(
        () => undefined,
        (err: unknown) => err,
      );
      assert.ok(refused instanceof OAuthFlowError, String(refused));
      assert.ok(
        refused.message.includes(
          `${hostile.url}/evil-as published metadata naming the issuer ${JSON.stringify(claim)}`,
        ),
        refused.message,
      );
    }
    assert.deepEqual(exchanged(), []);
    assert.equal(honest.asked.length, honestAsked, 'the honest server was asked nothing');
  });
});
