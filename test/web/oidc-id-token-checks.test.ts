/**
 * The ID token is checked before anyone is signed in: its issuer, audience, expiry and signature
 * against the provider's published keys. A real provider never issues the bad ones, so a tiny
 * provider of this file does, on demand; everything else about the flow is as a real one.
 */
import assert from 'node:assert/strict';
import { createHash, generateKeyPairSync, randomBytes, sign, type KeyObject } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, test } from 'vitest';
import { startOidcGate, type OidcGate } from '../support/oidc-gate.js';
import { expectStatus, seedWorkspace } from '../support/seed.js';

type Mode = 'good' | 'other-audience' | 'other-issuer' | 'expired' | 'unknown-key';

const clientId = 'fluidbox-gate';
const clientSecret = randomBytes(24).toString('base64url');
const group = `approvers-${randomBytes(8).toString('hex')}`;
// People of this file only, whatever earlier runs left in the database.
const tag = randomBytes(4).toString('hex');
const published = generateKeyPairSync('rsa', { modulusLength: 2048 });
const rogue = generateKeyPairSync('rsa', { modulusLength: 2048 });

const base64url = (data: string | Buffer) => Buffer.from(data).toString('base64url');

function jwt(claims: Record<string, unknown>, key: KeyObject): string {
  const signingInput = `${base64url(JSON.stringify({ alg: 'RS256', typ: 'JWT', kid: 'k1' }))}.${base64url(JSON.stringify(claims))}`;
  return `${signingInput}.${base64url(sign('sha256', Buffer.from(signingInput), key))}`;
}

/** A provider that signs in whoever `next` names, with the ID token `next.mode` asks for. */
class TinyProvider {
  issuer = '';
  next: { subject: string; mode: Mode } = { subject: 'nobody', mode: 'good' };
  private readonly codes = new Map<
    string,
    { nonce: string; challenge: string; subject: string; mode: Mode }
  >();
  private readonly server: Server = createServer((request, response) => {
    void this.answer(
      request.method ?? 'GET',
      new URL(request.url ?? '/', this.issuer),
      request,
    ).then(({ status, headers = {}, body = '' }) => {
      response.writeHead(status, { 'content-type': 'application/json', ...headers });
      response.end(typeof body === 'string' ? body : JSON.stringify(body));
    });
  });

  constructor(private readonly redirectUri: string) {}

  async start(): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.issuer = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) =>
      this.server.close(() => {
        resolve();
      }),
    );
  }

  private idToken(subject: string, nonce: string, mode: Mode): string {
    const now = Math.floor(Date.now() / 1000);
    return jwt(
      {
        iss: mode === 'other-issuer' ? 'http://127.0.0.1:1' : this.issuer,
        aud: mode === 'other-audience' ? 'another-client' : clientId,
        sub: subject,
        // A subject named so is one whose token lacks the claim the gate links people by.
        ...(!subject.startsWith('no-oid-') && { oid: `object-${subject}` }),
        nonce,
        iat: mode === 'expired' ? now - 7200 : now,
        exp: mode === 'expired' ? now - 3600 : now + 300,
        name: subject,
        groups: [group],
      },
      mode === 'unknown-key' ? rogue.privateKey : published.privateKey,
    );
  }

  private async answer(
    method: string,
    at: URL,
    request: AsyncIterable<unknown>,
  ): Promise<{ status: number; headers?: Record<string, string>; body?: unknown }> {
    if (at.pathname === '/.well-known/openid-configuration') {
      return {
        status: 200,
        body: {
          issuer: this.issuer,
          authorization_endpoint: `${this.issuer}/authorize`,
          token_endpoint: `${this.issuer}/token`,
          jwks_uri: `${this.issuer}/jwks`,
          response_types_supported: ['code'],
          subject_types_supported: ['public'],
          id_token_signing_alg_values_supported: ['RS256'],
          code_challenge_methods_supported: ['S256'],
          token_endpoint_auth_methods_supported: ['client_secret_basic'],
        },
      };
    }
    if (at.pathname === '/jwks') {
      const jwk = published.publicKey.export({ format: 'jwk' });
      return { status: 200, body: { keys: [{ ...jwk, kid: 'k1', alg: 'RS256', use: 'sig' }] } };
    }
    if (at.pathname === '/authorize') {
      const q = at.searchParams;
      assert.equal(q.get('redirect_uri'), this.redirectUri);
      assert.equal(q.get('code_challenge_method'), 'S256');
      const code = randomBytes(16).toString('hex');
      this.codes.set(code, {
        nonce: q.get('nonce') ?? '',
        challenge: q.get('code_challenge') ?? '',
        ...this.next,
      });
      const back = new URL(this.redirectUri);
      back.search = new URLSearchParams({ code, state: q.get('state') ?? '' }).toString();
      return { status: 302, headers: { location: back.href } };
    }
    if (at.pathname === '/token' && method === 'POST') {
      let text = '';
      for await (const chunk of request) text += String(chunk);
      const form = new URLSearchParams(text);
      const issued = this.codes.get(form.get('code') ?? '');
      this.codes.delete(form.get('code') ?? '');
      const verifier = form.get('code_verifier') ?? '';
      const challenge = createHash('sha256').update(verifier).digest('base64url');
      if (!issued || challenge !== issued.challenge) {
        return { status: 400, body: { error: 'invalid_grant' } };
      }
      return {
        status: 200,
        body: {
          access_token: randomBytes(16).toString('hex'),
          token_type: 'Bearer',
          expires_in: 300,
          id_token: this.idToken(issued.subject, issued.nonce, issued.mode),
        },
      };
    }
    return { status: 404, body: { error: 'not_found' } };
  }
}

let provider: TinyProvider;
let gate: OidcGate;

/** A whole sign-in as a browser makes it, the provider issuing the ID token `mode` asks for. */
async function signIn(subject: string, mode: Mode): Promise<Response> {
  provider.next = { subject, mode };
  const start = await fetch(`${gate.api.url}/auth/oidc/login`, { redirect: 'manual' });
  const cookie = start.headers
    .getSetCookie()
    .find((c) => c.startsWith('fg_oidc='))
    ?.split(';')[0];
  assert.ok(cookie, 'the sign-in is bound to this browser by a cookie');
  const atProvider = await fetch(start.headers.get('location') ?? '', { redirect: 'manual' });
  return fetch(atProvider.headers.get('location') ?? '', {
    headers: { cookie },
    redirect: 'manual',
  });
}

async function traceOf(subject: string) {
  const { rows } = await gate.db.query<{ people: number; members: number; sessions: number }>(
    `select (select count(*)::int from people where subject = $1) as people,
       (select count(*)::int from members m join people p on p.id = m.person_id
          where p.subject = $1) as members,
       (select count(*)::int from web_sessions s join members m on m.id = s.member_id
          join people p on p.id = m.person_id where p.subject = $1) as sessions`,
    [subject],
  );
  return rows[0];
}

describe('the ID token is checked before anyone is signed in', () => {
  beforeAll(async () => {
    gate = await startOidcGate(async (redirectUri) => {
      provider = await new TinyProvider(redirectUri).start();
      // As for Entra ID: a provisioned User's externalId is the token's `oid`.
      return { issuer: provider.issuer, clientId, clientSecret, externalIdClaim: 'oid' };
    });
    const seed = await seedWorkspace(gate.api);
    await expectStatus(
      gate.api.call('PUT', `/v1/workspaces/${seed.workspace}/identity`, {
        token: gate.api.operatorKey,
        body: { roles: { [group]: 'approver' } },
      }),
      200,
    );
  });
  afterAll(async () => {
    await gate.close();
    await provider.close();
  });

  test('a good ID token signs the person in (the control: this provider is enough for a sign-in)', async () => {
    const grace = `grace-${tag}`;
    const answer = await signIn(grace, 'good');
    assert.equal(answer.status, 200);
    assert.ok(answer.headers.getSetCookie().some((c) => c.startsWith('fg_session=')));
    assert.deepEqual(await traceOf(grace), { people: 1, members: 1, sessions: 1 });
    const { rows } = await gate.db.query<{ external_id: string }>(
      'select external_id from people where subject = $1',
      [grace],
    );
    assert.equal(rows[0]?.external_id, `object-${grace}`, 'kept from the claim the gate names');

    // Without the claim, no external id at all: never the subject in its place.
    const hopper = `no-oid-hopper-${tag}`;
    assert.equal((await signIn(hopper, 'good')).status, 200);
    const { rows: without } = await gate.db.query<{ external_id: string | null }>(
      'select external_id from people where subject = $1',
      [hopper],
    );
    assert.deepEqual(without, [{ external_id: null }]);
  });

  for (const [mode, reason] of [
    ['other-audience', /aud/],
    ['other-issuer', /iss/],
    ['expired', /exp|timestamp/],
    ['unknown-key', /signature|key/i],
  ] as const) {
    test(`an ID token ${mode.replace('-', ' ')} is refused with a page, and nothing is created`, async () => {
      const subject = `mallory-${mode}-${tag}`;
      const answer = await signIn(subject, mode);
      assert.equal(answer.status, 401);
      assert.match(answer.headers.get('content-type') ?? '', /text\/html/);
      const page = await answer.text();
      assert.match(page, /Sign-in was refused: [^<]+\. Nothing was recorded/);
      assert.match(page.replace(/&#34;|&quot;/g, '"'), reason);
      assert.equal(
        answer.headers.getSetCookie().some((c) => c.startsWith('fg_session=')),
        false,
      );
      assert.deepEqual(await traceOf(subject), { people: 0, members: 0, sessions: 0 });
    });
  }
});
