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
async function postToken(token: string, at: OidcGate = gate): Promise<Response> {
  return (await readyToPost(token, at))();
}

/** Reads the sign-in page, answering the post of `token` that its form and cookie allow. */
async function readyToPost(token: string, at: OidcGate): Promise<() => Promise<Response>> {
  const url = (path: string) => `${at.api.url}${path}`;
  const page = await fetch(url('/login'));
  const cookies = page.headers.getSetCookie().map((cookie) => cookie.split(';')[0] ?? '');
  const body = new URLSearchParams({ csrf: csrfIn(await page.text()), token }).toString();
  return () =>
    fetch(url('/login'), {
      method: 'POST',
      redirect: 'manual',
      headers: {
        cookie: cookies.join('; '),
        origin: at.api.url,
        'content-type': 'application/x-www-form-urlencoded',
      },
      body,
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

describe('the attempt limit counts every wrong key, at once', () => {
  // Gates of their own, each with a fresh limit for the loopback address.
  let burstGate: OidcGate;
  let keyOnlyGate: OidcGate;
  const providers: DevIdentityProvider[] = [];
  const provider = async (redirectUri: string) => {
    const started = await startDevIdentityProvider({ redirectUri, people: [] });
    providers.push(started);
    return started;
  };
  beforeAll(async () => {
    burstGate = await startOidcGate(provider);
    keyOnlyGate = await startOidcGate(provider, { tokenSignIn: false });
  });
  afterAll(async () => {
    await burstGate.close();
    await keyOnlyGate.close();
    await Promise.all(providers.map((started) => started.close()));
  });

  test('of a burst of concurrent wrong tokens, those past the limit are 429', async () => {
    const burst = 3 * loginGuessesPerMinute;
    const posts = await Promise.all(
      Array.from({ length: burst }, (_, i) => readyToPost(`fgu_burst-guess-${i}`, burstGate)),
    );
    const answers = await Promise.all(posts.map((post) => post()));
    const statuses = answers.map((answer) => answer.status);
    await Promise.all(answers.map((answer) => answer.text()));
    assert.equal(statuses.filter((status) => status === 401).length, loginGuessesPerMinute);
    assert.equal(statuses.filter((status) => status === 429).length, burst - loginGuessesPerMinute);
  });

  test('with token sign-in off, wrong operator keys are limited too', async () => {
    for (let i = 0; i < loginGuessesPerMinute; i++) {
      const wrong = await postToken(`wrong-operator-key-${i}`, keyOnlyGate);
      assert.equal(wrong.status, 403, `guess ${i}`);
      await wrong.body?.cancel();
    }
    const held = await postToken('one-more-operator-key', keyOnlyGate);
    assert.equal(held.status, 429);
    assert.ok(Number(held.headers.get('retry-after')) >= 1);
    await held.body?.cancel();
    const right = await postToken(keyOnlyGate.api.operatorKey, keyOnlyGate);
    assert.equal(right.status, 429);
    await right.body?.cancel();
  });
});
