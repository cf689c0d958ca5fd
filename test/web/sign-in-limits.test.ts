/**
 * Guessing is slow and starting is free: wrong tokens at `/login` and sign-ins started at the
 * identity provider are limited per client address (429 with Retry-After), and a sign-in that
 * never comes back from the provider leaves nothing in the database.
 */
import assert from 'node:assert/strict';
import { afterAll, beforeAll, describe, test } from 'vitest';
import { signInStartsPerMinute } from '../../src/api/web/oidc-routes.js';
import { loginGuessesPerMinute } from '../../src/api/web/login-routes.js';
import {
  startDevIdentityProvider,
  type DevIdentityProvider,
} from '../../tools/devstack/identity-provider.js';
import { startOidcGate, type OidcGate } from '../support/oidc-gate.js';
import { csrfIn } from '../support/web-form.js';

// A gate of the file's own: the limits it reaches hold its address back for a minute.
let gate: OidcGate;
let idp: DevIdentityProvider;
beforeAll(async () => {
  gate = await startOidcGate(async (redirectUri) => {
    idp = await startDevIdentityProvider({ redirectUri, people: [] });
    return idp;
  });
});
afterAll(async () => {
  await gate.close();
  await idp.close();
});

const url = (path: string) => `${gate.api.url}${path}`;

/** Posts the sign-in form with `token`, as its page and cookie allow. */
async function postToken(token: string): Promise<Response> {
  const page = await fetch(url('/login'));
  const cookies = page.headers.getSetCookie().map((cookie) => cookie.split(';')[0] ?? '');
  return fetch(url('/login'), {
    method: 'POST',
    redirect: 'manual',
    headers: {
      cookie: cookies.join('; '),
      origin: gate.api.url,
      'content-type': 'application/x-www-form-urlencoded',
    },
    body: new URLSearchParams({ csrf: csrfIn(await page.text()), token }).toString(),
  });
}

describe('an attempt limit per client address', () => {
  test(`${loginGuessesPerMinute} wrong tokens a minute at /login; then 429 with Retry-After, the right key too`, async () => {
    for (let i = 0; i < loginGuessesPerMinute; i++) {
      const wrong = await postToken(`fgo_wrong-guess-${i}`);
      assert.equal(wrong.status, 401, `guess ${i}`);
      await wrong.body?.cancel();
    }
    const held = await postToken('fgo_one-more-guess');
    assert.equal(held.status, 429);
    const retryAfter = Number(held.headers.get('retry-after'));
    assert.ok(retryAfter >= 1 && retryAfter <= 60, `Retry-After: ${retryAfter}`);
    assert.match(await held.text(), /Too many wrong tokens/);
    // While it waits, nothing is checked: not even the operator key gets through.
    const right = await postToken(gate.api.operatorKey);
    assert.equal(right.status, 429);
    await right.body?.cancel();
  });

  test(`${signInStartsPerMinute} sign-ins started a minute; then 429 with Retry-After, and none of them written`, async () => {
    const { rows: before } = await gate.db.query<{ n: number }>(
      'select count(*)::int as n from oidc_authorizations',
    );
    for (let i = 0; i < signInStartsPerMinute; i++) {
      const started = await fetch(url('/auth/oidc/login'), { redirect: 'manual' });
      assert.equal(started.status, 303, `start ${i}`);
      assert.ok(started.headers.get('location')?.startsWith(idp.issuer));
    }
    const held = await fetch(url('/auth/oidc/login'), { redirect: 'manual' });
    assert.equal(held.status, 429);
    assert.ok(Number(held.headers.get('retry-after')) >= 1);
    const { rows: after } = await gate.db.query<{ n: number }>(
      'select count(*)::int as n from oidc_authorizations',
    );
    assert.equal(after[0]!.n, before[0]!.n, 'no sign-in under way is written');
  });
});
