/**
 * People sign in with the company's identity provider: an `oidc-provider` started by this file
 * (the development provider of `npm run dev`, whose sign-in page picks a person without a
 * password), and real Chromium. Roles follow the provider's groups at each sign-in.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, test } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { closeContexts, sharedChromium } from '../support/browser-pages.js';
import {
  startDevIdentityProvider,
  type DevIdentityProvider,
  type DevPerson,
} from '../../tools/devstack/identity-provider.js';
import { signInAtProvider, startOidcGate, type OidcGate } from '../support/oidc-gate.js';
import {
  askForBash,
  createRun,
  expectStatus,
  seedWorkspace,
  toolCallUntilAnswered,
  type CreatedRun,
  type Seed,
} from '../support/seed.js';

// Group names of this file only: other files' workspaces map groups of their own.
const approvers = `approvers-${randomUUID()}`;
const members = `members-${randomUUID()}`;
const person = (subject: string, name: string, groups: string[]): DevPerson => ({
  subject: `${subject}-${randomUUID()}`,
  name,
  email: `${subject}@acme.test`,
  groups,
});
const olga = person('olga', 'Olga Approver', [approvers]);
const mo = person('mo', 'Mo Member', [members]);
const lea = person('lea', 'Lea Leaver', [approvers]);
const eve = person('eve', 'Eve Nobody', [approvers]);

let idp: DevIdentityProvider;
let gate: OidcGate;
let seed: Seed;
let run: CreatedRun;
let browser: Browser;
const contexts: BrowserContext[] = [];

const url = (path: string) => `${gate.api.url}${path}`;

async function newContext(): Promise<BrowserContext> {
  const context = await browser.newContext();
  contexts.push(context);
  return context;
}

/** Signs in at the provider as this person; the page the gate lands on. */
const signIn = (context: BrowserContext, who: DevPerson): Promise<Page> =>
  signInAtProvider(context, gate.api.url, who);

async function membershipOf(who: DevPerson) {
  const { rows } = await gate.db.query<{ role: string; status: string }>(
    `select m.role, m.status from members m join people p on p.id = m.person_id
     where p.issuer = $1 and p.subject = $2 and m.workspace_id = $3`,
    [idp.issuer, who.subject, seed.workspace],
  );
  return rows[0];
}

async function approvalStatus(toolCallId: string) {
  const { rows } = await gate.db.query<{ status: string }>(
    'select status from approvals where session_id = $1 and tool_call_id = $2',
    [run.session_id, toolCallId],
  );
  return rows[0]?.status;
}

/**
 * Goes through a sign-in with this browser's cookies up to the provider's redirect back to the
 * gate, and stops there: the callback URL, with a live code and state, as an attacker who caught
 * it would have it.
 */
async function caughtCallback(context: BrowserContext, who: DevPerson): Promise<URL> {
  let next = url('/auth/oidc/login');
  for (let hop = 0; hop < 10; hop += 1) {
    if (next.startsWith(url('/auth/oidc/callback'))) return new URL(next);
    let answer = await context.request.get(next, { maxRedirects: 0 });
    if (answer.status() === 200) {
      // The provider's page: pick the person.
      const action = /action="([^"]+)"/.exec(await answer.text())?.[1] ?? '';
      answer = await context.request.post(new URL(action, next).href, {
        form: { subject: who.subject },
        maxRedirects: 0,
      });
    }
    next = new URL(answer.headers().location ?? '', next).href;
  }
  throw new Error('the provider never sent the browser back');
}

/** A sign-in started in this browser: its pending cookie is set; answers its state. */
async function startedSignIn(context: BrowserContext): Promise<string> {
  const started = await context.request.get(url('/auth/oidc/login'), { maxRedirects: 0 });
  assert.equal(started.status(), 303);
  return new URL(started.headers().location ?? '').searchParams.get('state') ?? '';
}

/** What a sign-in of this person left: people rows and web sessions. */
async function traceOf(who: DevPerson) {
  const { rows } = await gate.db.query<{ people: number; sessions: number }>(
    `select (select count(*)::int from people where subject = $1) as people,
       (select count(*)::int from web_sessions s join members m on m.id = s.member_id
          join people p on p.id = m.person_id where p.subject = $1) as sessions`,
    [who.subject],
  );
  return rows[0];
}

/** The callback's URL with some of its query replaced. */
function withQuery(callback: URL, changes: Record<string, string>): string {
  const forged = new URL(callback.href);
  for (const [name, value] of Object.entries(changes)) forged.searchParams.set(name, value);
  return forged.href;
}

async function expectRefused(
  answer: { status(): number; text(): Promise<string> },
  reason: RegExp,
) {
  assert.equal(answer.status(), 401);
  const page = await answer.text();
  assert.match(page, /Sign-in was refused: [^<]+\. Nothing was recorded/);
  assert.match(page, reason);
}

describe('sign-in with the identity provider', () => {
  beforeAll(async () => {
    gate = await startOidcGate(
      async (redirectUri) => {
        idp = await startDevIdentityProvider({ redirectUri, people: [olga, mo, lea, eve] });
        return idp;
      },
      { tokenSignIn: false },
    );
    seed = await seedWorkspace(gate.api, askForBash);
    await expectStatus(
      gate.api.call('PUT', `/v1/workspaces/${seed.workspace}/identity`, {
        token: gate.api.operatorKey,
        body: { roles: { [approvers]: 'approver', [members]: 'member' } },
      }),
      200,
    );
    run = await createRun(gate.api, seed);
    browser = await sharedChromium();
  });
  afterAll(async () => {
    await closeContexts(browser);
    await gate.close();
    await idp.close();
  });

  test("the identity mapping is the operator's to set, and a bad one is refused naming the field", async () => {
    const path = `/v1/workspaces/${seed.workspace}/identity`;
    const asMember = await gate.api.call('PUT', path, {
      token: seed.admin.token,
      body: { roles: { x: 'admin' } },
    });
    assert.equal(asMember.status, 403);
    const bad = await gate.api.call('PUT', path, {
      token: gate.api.operatorKey,
      body: { roles: { [approvers]: 'owner' } },
    });
    assert.equal(bad.status, 400);
    assert.match(JSON.stringify(bad.body.errors), /body\.roles/);
  });

  test("a person in the approvers' group signs in at the provider and decides a call", async () => {
    await expectStatus(
      toolCallUntilAnswered(gate.api, run, 'c1', { tool: 'Bash', arguments: { command: 'ls' } }),
      202,
    );
    const page = await signIn(await newContext(), olga);
    assert.equal(new URL(page.url()).pathname, '/approvals');
    assert.deepEqual(await membershipOf(olga), { role: 'approver', status: 'active' });
    assert.match(await page.locator('header').innerText(), /Olga Approver \(approver\)/);

    await page.goto(url(`/approvals/${run.session_id}/c1`));
    await page.getByRole('button', { name: 'Approve' }).click();
    await page.locator('.notice.ok').waitFor();
    assert.equal(await approvalStatus('c1'), 'approved');
  });

  test("a person in the members' group sees a pending call but cannot decide it", async () => {
    await expectStatus(
      toolCallUntilAnswered(gate.api, run, 'c2', { tool: 'Bash', arguments: { command: 'id' } }),
      202,
    );
    const page = await signIn(await newContext(), mo);
    assert.deepEqual(await membershipOf(mo), { role: 'member', status: 'active' });
    await page.goto(url(`/approvals/${run.session_id}/c2`));
    assert.match(await page.locator('main').innerText(), /Bash[\s\S]*pending/);
    assert.equal(await page.getByRole('button', { name: 'Approve' }).count(), 0);
    // The form's post, forged with his own valid CSRF token, is refused all the same.
    const csrf = await page.locator('header input[name="csrf"]').getAttribute('value');
    const forged = await page.request.post(url(`/approvals/${run.session_id}/c2/decision`), {
      form: { csrf: csrf ?? '', decision: 'approve' },
    });
    assert.equal(forged.status(), 403);
    assert.equal(await approvalStatus('c2'), 'pending');
  });

  test('a group removed at the provider suspends the membership at the next sign-in, and the open session of the suspended person is refused at its next request', async () => {
    const first = await signIn(await newContext(), lea);
    assert.deepEqual(await membershipOf(lea), { role: 'approver', status: 'active' });

    lea.groups = [];
    const again = await signIn(await newContext(), lea);
    assert.match(await again.locator('main').innerText(), /none of your groups gives you a role/);
    assert.deepEqual(await membershipOf(lea), { role: 'approver', status: 'suspended' });

    // The bound: the session is checked against the membership on every request, so the very
    // next request of the session opened before is refused.
    const next = await first.request.get(url('/approvals'), { maxRedirects: 0 });
    assert.equal(next.status(), 303);
    assert.match(next.headers().location ?? '', /^\/login/);
    const list = await first.request.get(url('/approvals/list'));
    assert.equal(list.status(), 401);
  });

  test("signing out needs the form's CSRF token; signed out, the session is gone", async () => {
    const context = await newContext();
    const page = await signIn(context, olga);
    const forged = await page.request.post(url('/logout'), { form: { csrf: 'forged' } });
    assert.equal(forged.status(), 403);
    assert.equal((await page.request.get(url('/approvals/list'))).status(), 200);

    await Promise.all([
      page.waitForURL(url('/login')),
      page.getByRole('button', { name: 'Sign out' }).click(),
    ]);
    assert.equal((await page.request.get(url('/approvals/list'))).status(), 401);
  });

  test('with token sign-in off, a user token is refused at the sign-in form and still works for the API', async () => {
    const page = await (await newContext()).newPage();
    await page.goto(url('/login'));
    await page.fill('#token', seed.admin.token);
    await page.getByRole('button', { name: 'Sign in' }).click();
    assert.match(await page.locator('[role="alert"]').innerText(), /switched off/);
    assert.equal((await page.request.get(url('/approvals/list'))).status(), 401);
    const api = await gate.api.call('GET', '/v1/approvals', { token: seed.admin.token });
    assert.equal(api.status, 200);
  });

  test('a personal API token minted in the web app works for the API until revoked, and an expired one is refused', async () => {
    const page = await signIn(await newContext(), olga);
    await page.goto(url('/tokens'));
    const mint = async (name: string) => {
      await page.fill('#token-name', name);
      await page.getByRole('button', { name: 'Create token' }).click();
      return (await page.locator('#minted-token').innerText()).trim();
    };
    const laptop = await mint('laptop');
    const ci = await mint('ci');
    assert.match(laptop, /^fgp_/);
    for (const token of [laptop, ci]) {
      const answer = await gate.api.call('GET', '/v1/approvals', { token });
      assert.equal(answer.status, 200, 'the token acts as its owner');
    }
    const listed = await page.locator('#tokens tbody tr').allInnerTexts();
    assert.ok(
      listed.some((row) => row.includes('laptop')) && listed.some((row) => row.includes('ci')),
    );

    await page.locator('tr', { hasText: 'laptop' }).getByRole('button', { name: 'Revoke' }).click();
    await page.waitForURL(url('/tokens'));
    assert.equal((await gate.api.call('GET', '/v1/approvals', { token: laptop })).status, 401);
    assert.match(await page.locator('tr', { hasText: 'laptop' }).innerText(), /revoked/);

    // Its expiry reached (the clock moved by rewriting the row): refused from then on.
    await gate.db.query(
      `update personal_tokens set created_at = now() - interval '2 days',
         expires_at = now() - interval '1 second' where name = 'ci' and member_id in
         (select m.id from members m join people p on p.id = m.person_id where p.subject = $1)`,
      [olga.subject],
    );
    assert.equal((await gate.api.call('GET', '/v1/approvals', { token: ci })).status, 401);
  });

  test('a web session unused for longer than its idle lifetime is refused', async () => {
    const page = await signIn(await newContext(), olga);
    assert.equal((await page.request.get(url('/approvals/list'))).status(), 200);
    const idleS = gate.api.config.web.sessionIdleS;
    await gate.db.query(
      `update web_sessions set last_seen_at = now() - make_interval(secs => $1 + 1)
       where member_id in (select m.id from members m join people p on p.id = m.person_id
                           where p.subject = $2)`,
      [idleS, olga.subject],
    );
    assert.equal((await page.request.get(url('/approvals/list'))).status(), 401);
  });
  test('a callback with the wrong state is refused with a page, and nothing is created', async () => {
    const victim = await newContext();
    const callback = await caughtCallback(victim, eve);
    await expectRefused(
      await victim.request.get(withQuery(callback, { state: 'forged' })),
      /state/,
    );
    // The sign-in under way was taken by that attempt: the genuine state finds nothing now.
    await expectRefused(await victim.request.get(callback.href), /no sign-in under way/);
    assert.deepEqual(await traceOf(eve), { people: 0, sessions: 0 });
  });

  test("a code caught from another browser is refused in the attacker's: its PKCE verifier is not the one the code was issued for", async () => {
    const callback = await caughtCallback(await newContext(), eve);
    const attacker = await newContext();
    const state = await startedSignIn(attacker);
    await expectRefused(
      await attacker.request.get(withQuery(callback, { state })),
      /answered invalid_grant/,
    );
    assert.deepEqual(await traceOf(eve), { people: 0, sessions: 0 });
  });

  test('the provider refuses a code redeemed without its PKCE verifier', async () => {
    const callback = await caughtCallback(await newContext(), eve);
    const redeemed = await fetch(`${idp.issuer}/token`, {
      method: 'POST',
      headers: {
        authorization: `Basic ${Buffer.from(`${idp.clientId}:${idp.clientSecret}`).toString('base64')}`,
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        code: callback.searchParams.get('code') ?? '',
        redirect_uri: url('/auth/oidc/callback'),
      }),
    });
    assert.equal(redeemed.status, 400);
    assert.equal(((await redeemed.json()) as { error: string }).error, 'invalid_grant');
  });

  test('a replayed callback is refused: in the same browser it finds no sign-in under way, in a new sign-in its code was used', async () => {
    const context = await newContext();
    const callback = await caughtCallback(context, olga);
    const signedIn = await context.request.get(callback.href);
    assert.equal(signedIn.status(), 200);
    const before = await traceOf(olga);

    await expectRefused(await context.request.get(callback.href), /no sign-in under way/);
    const state = await startedSignIn(context);
    await expectRefused(
      await context.request.get(withQuery(callback, { state })),
      /answered invalid_grant/,
    );
    assert.deepEqual(await traceOf(olga), before);
  });
});
