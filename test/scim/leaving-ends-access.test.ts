/**
 * Leaving ends access at once. People are provisioned by the identity provider over SCIM and
 * sign in at it (the development provider, real Chromium): a deactivation, a group removal or an
 * operator's suspension ends their web sessions, personal tokens, grants and personal
 * connections, each refused at its next use; an operator's suspension holds through sign-ins and
 * the provider's changes, and reactivation revives none of what it ended.
 */
import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, test } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { closeContexts, sharedChromium } from '../support/browser-pages.js';
import {
  startDevIdentityProvider,
  type DevIdentityProvider,
  type DevPerson,
} from '../../tools/devstack/identity-provider.js';
import { signInAtProvider, startOidcGate, type OidcGate } from '../support/oidc-gate.js';
import { startRugpullUpstream, type RugpullUpstream } from '../support/rugpull-upstream.js';
import {
  askForBash,
  createRun,
  expectStatus,
  seedWorkspace,
  toolCall,
  toolCallUntilAnswered,
  type CreatedRun,
  type Seed,
} from '../support/seed.js';

// Group names of this file only: other files' workspaces map groups of their own.
const approvers = `approvers-${randomUUID()}`;
const admins = `admins-${randomUUID()}`;
const person = (handle: string, name: string, groups: string[] = []): DevPerson => ({
  subject: `${handle}-${randomUUID()}`,
  name,
  email: `${handle}-${randomBytes(4).toString('hex')}@acme.test`,
  groups,
});
const dana = person('dana', 'Dana Leaver');
const rita = person('rita', 'Rita Mover');
const sam = person('sam', 'Sam Suspended');
// Not provisioned: a member made at sign-in from the groups claim.
const nick = person('nick', 'Nick Claims', [approvers]);

const upstreamToken = randomBytes(16).toString('hex');
let idp: DevIdentityProvider;
let gate: OidcGate;
let seed: Seed;
let scimToken: string;
let upstream: RugpullUpstream;
let browser: Browser;
const contexts: BrowserContext[] = [];
const groupIds: Record<string, string> = {};

const url = (path: string) => `${gate.api.url}${path}`;

async function newContext(): Promise<BrowserContext> {
  const context = await browser.newContext();
  contexts.push(context);
  return context;
}

const signIn = async (who: DevPerson): Promise<Page> =>
  signInAtProvider(await newContext(), gate.api.url, who);

/** A SCIM request as the workspace's identity provider makes it. */
async function scim(method: string, path: string, body?: unknown) {
  const response = await fetch(url(`/scim/v2${path}`), {
    method,
    headers: {
      authorization: `Bearer ${scimToken}`,
      ...(body !== undefined && { 'content-type': 'application/scim+json' }),
    },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined };
}

const patchOp = (...operations: Record<string, unknown>[]) => ({
  schemas: ['urn:ietf:params:scim:api:messages:2.0:PatchOp'],
  Operations: operations,
});

async function provision(who: DevPerson): Promise<string> {
  const created = await scim('POST', '/Users', {
    schemas: ['urn:ietf:params:scim:schemas:core:2.0:User'],
    userName: who.email,
    name: { formatted: who.name },
    emails: [{ value: who.email, type: 'work', primary: true }],
    active: true,
  });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  return created.body.id as string;
}

async function joinGroup(group: string, memberId: string) {
  const answer = await scim(
    'PATCH',
    `/Groups/${groupIds[group]}`,
    patchOp({ op: 'add', path: 'members', value: [{ value: memberId }] }),
  );
  assert.equal(answer.status, 200, JSON.stringify(answer.body));
}

async function leaveGroup(group: string, memberId: string) {
  const answer = await scim(
    'PATCH',
    `/Groups/${groupIds[group]}`,
    patchOp({ op: 'remove', path: `members[value eq "${memberId}"]` }),
  );
  assert.equal(answer.status, 200, JSON.stringify(answer.body));
}

async function membership(memberId: string) {
  const { rows } = await gate.db.query<{ role: string; status: string }>(
    'select role, status from members where id = $1',
    [memberId],
  );
  return rows[0];
}

/** Mints a personal API token in the web app, as the signed-in person does. */
async function mintToken(page: Page, name: string): Promise<string> {
  await page.goto(url('/tokens'));
  await page.fill('#token-name', name);
  await page.getByRole('button', { name: 'Create token' }).click();
  return (await page.locator('#minted-token').innerText()).trim();
}

/** Whether a session's next request is served (200) or signed out (401). */
const sessionStatus = async (page: Page) =>
  (await page.request.get(url('/approvals/list'))).status();
const tokenStatus = async (token: string) =>
  (await gate.api.call('GET', '/v1/approvals', { token })).status;

/** What changed a member's access, as the operator reads it. */
async function accessEvents(memberId: string) {
  return expectStatus<{ type: string; actor: string; subject_id: string | null }[]>(
    gate.api.call('GET', `/v1/workspaces/${seed.workspace}/members/${memberId}/access-events`, {
      token: gate.api.operatorKey,
    }),
    200,
  );
}

describe('leaving ends access at once', () => {
  beforeAll(async () => {
    gate = await startOidcGate(
      async (redirectUri) => {
        idp = await startDevIdentityProvider({ redirectUri, people: [dana, rita, sam, nick] });
        return idp;
      },
      { tokenSignIn: false },
    );
    seed = await seedWorkspace(gate.api, askForBash);
    const op = { token: gate.api.operatorKey };
    await expectStatus(
      gate.api.call('PUT', `/v1/workspaces/${seed.workspace}/identity`, {
        ...op,
        body: { roles: { [approvers]: 'approver', [admins]: 'admin' } },
      }),
      200,
    );
    scimToken = (
      await expectStatus(
        gate.api.call('POST', `/v1/workspaces/${seed.workspace}/scim-token`, op),
        201,
      )
    ).scim_token as string;
    for (const group of [approvers, admins]) {
      const created = await scim('POST', '/Groups', {
        schemas: ['urn:ietf:params:scim:schemas:core:2.0:Group'],
        displayName: group,
      });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      groupIds[group] = created.body.id as string;
    }
    upstream = await startRugpullUpstream({ token: upstreamToken });
    browser = await sharedChromium();
  });
  afterAll(async () => {
    // Each close names itself while it takes long: beside a second suite this hook once ran out
    // of its bound in both runs of a pair, and which close held it was not known.
    for (const [what, close] of [
      ['the browser contexts', () => closeContexts(browser)],
      ['the upstream', () => upstream.close()],
      ['the gate', () => gate.close()],
      ['the identity provider', () => idp.close()],
    ] as const) {
      const slow = setTimeout(() => {
        process.stderr.write(`leaving-ends-access: ${what} still closing after 20 s\n`);
      }, 20_000);
      try {
        await close();
      } finally {
        clearTimeout(slow);
      }
    }
  });

  test('the identity provider deactivates a person holding a web session, a personal token, a grant and a personal connection: each is refused at its next use, within a second', async () => {
    const id = await provision(dana);
    assert.deepEqual(await membership(id), { role: 'member', status: 'suspended' });
    await joinGroup(approvers, id);
    assert.deepEqual(await membership(id), { role: 'approver', status: 'active' });

    // Provisioned, then signing in: one member, the one the provider made.
    const page = await signIn(dana);
    assert.equal(new URL(page.url()).pathname, '/approvals');
    const { rows: sessions } = await gate.db.query<{ member_id: string }>(
      'select member_id from web_sessions where member_id = $1',
      [id],
    );
    assert.equal(sessions.length, 1, 'the web session is the provisioned member’s');
    const token = await mintToken(page, 'laptop');
    assert.equal(await tokenStatus(token), 200);

    // A standing approval she gives, and a personal connection of hers on a run she invoked.
    const run = await createRun(gate.api, seed);
    await expectStatus(
      toolCallUntilAnswered(gate.api, run, 'c1', {
        tool: 'Bash',
        arguments: { command: 'npm test' },
      }),
      202,
    );
    await expectStatus(
      gate.api.call('POST', `/v1/approvals/${run.session_id}/c1/decision`, {
        token,
        body: { decision: 'approve', grant: { for_s: null } },
      }),
      200,
    );
    const covered = await expectStatus(
      toolCallUntilAnswered(gate.api, run, 'c2', {
        tool: 'Bash',
        arguments: { command: 'npm test' },
      }),
      200,
    );
    assert.match(String(covered.reason), /grant/);
    const connection = await expectStatus(
      gate.api.call('POST', '/v1/connections', {
        token: gate.api.operatorKey,
        body: {
          workspace: seed.workspace,
          name: 'dana',
          kind: 'personal',
          owner_user_id: id,
          url: upstream.url,
          credential: { type: 'bearer', token: upstreamToken },
        },
      }),
      201,
    );
    const personalRun: CreatedRun = await createRun(gate.api, seed, {
      invoked_by: id,
      tools: { connections: [{ id: connection.id }] },
    });
    const before = await expectStatus(
      toolCallUntilAnswered(gate.api, personalRun, 'p1', {
        tool: 'mcp__dana__search_notes',
        arguments: { query: 'q' },
      }),
      200,
    );
    assert.equal(before.decision, 'allow');

    // An authorization she started at a server and has not finished (as its row stands).
    const pending = await gate.db.query<{ state_hash: Buffer }>(
      `insert into oauth_authorizations (state_hash, connection_id, member_id, sealed_attempt, expires_at)
       values ($1, $2, $3, '\\x00', now() + interval '10 minutes') returning state_hash`,
      [randomBytes(32), connection.id, id],
    );

    const deactivated = await scim(
      'PATCH',
      `/Users/${id}`,
      patchOp({ op: 'replace', path: 'active', value: false }),
    );
    assert.equal(deactivated.status, 200);
    assert.equal(deactivated.body.active, false);
    const at = Date.now();
    const timed = async <T>(use: Promise<T>) => {
      const answer = await use;
      return { answer, ms: Date.now() - at };
    };
    const [session, personal, grant, brokered] = await Promise.all([
      timed(sessionStatus(page)),
      timed(tokenStatus(token)),
      timed(toolCall(gate.api, run, 'c3', { tool: 'Bash', arguments: { command: 'npm test' } })),
      timed(
        toolCall(gate.api, personalRun, 'p2', {
          tool: 'mcp__dana__search_notes',
          arguments: { query: 'q' },
        }),
      ),
    ]);
    assert.equal(session.answer, 401, 'the web session is signed out');
    assert.equal(personal.answer, 401, 'the personal token is refused');
    assert.equal(grant.answer.status, 202, 'the grant no longer covers: the call asks a person');
    assert.equal(brokered.answer.status, 401, 'the run she invoked ended with her access');
    // Each is the first use after the provider's answer, none tried again: refused at once. The
    // time is one request's (a tool call starts a workflow), bounded at the catastrophic: a
    // loaded machine running another suite beside this one takes about a second.
    for (const use of [session, personal, grant, brokered])
      assert.ok(use.ms < 5_000, `${use.ms} ms`);

    // What ended, recorded: nothing of it is left to revive.
    assert.deepEqual(await membership(id), { role: 'approver', status: 'suspended' });
    const state = await gate.db.query<Record<string, number | string>>(
      `select (select count(*)::int from web_sessions where member_id = $1) as sessions,
         (select count(*)::int from personal_tokens where member_id = $1 and revoked_at is null) as tokens,
         (select count(*)::int from approval_grants where granted_by = $1 and revoked_at is null) as grants,
         (select status from connections where id = $2) as connection`,
      [id, connection.id],
    );
    assert.deepEqual(state.rows[0], {
      sessions: 0,
      tokens: 0,
      grants: 0,
      connection: 'needs_reauthorization',
    });
    const used = await gate.db.query<{ used: boolean }>(
      'select used_at is not null as used from oauth_authorizations where state_hash = $1',
      [pending.rows[0]?.state_hash],
    );
    assert.equal(used.rows[0]?.used, true, 'the authorization under way can finish nothing');
    const types = (await accessEvents(id)).filter((e) => e.actor === 'identity_provider');
    for (const type of [
      'member.suspended',
      'web_session.ended',
      'personal_token.revoked',
      'grant.revoked',
      'connection.needs_owner',
      'runs.ended',
    ]) {
      assert.ok(
        types.some((e) => e.type === type),
        `${type} recorded: ${JSON.stringify(types)}`,
      );
    }
    const ledger = await gate.db.query<{ data: Record<string, unknown> }>(
      `select data from ledger_events where stream_id = $1 and type = 'grant.revoked'`,
      [run.session_id],
    );
    assert.deepEqual(
      ledger.rows.map((r) => r.data.because),
      ['grantor_access_ended'],
    );

    // Reactivated by the provider, she gets nothing back: a new sign-in is a new session.
    const reactivated = await scim(
      'PATCH',
      `/Users/${id}`,
      patchOp({ op: 'replace', value: { active: true } }),
    );
    assert.equal(reactivated.status, 200);
    assert.deepEqual(await membership(id), { role: 'approver', status: 'active' });
    assert.equal(await sessionStatus(page), 401);
    assert.equal(await tokenStatus(token), 401);
    const replay = await toolCall(gate.api, run, 'c4', {
      tool: 'Bash',
      arguments: { command: 'npm test' },
    });
    assert.equal(replay.status, 202, 'the revoked grant stays revoked');
    assert.equal(await sessionStatus(await signIn(dana)), 200);
    const stale = await toolCall(gate.api, personalRun, 'p3', {
      tool: 'mcp__dana__search_notes',
      arguments: { query: 'q' },
    });
    assert.equal(stale.status, 401, 'the run she invoked before stays ended');
    // Her connection waits for a new credential; with it, a new run of hers uses it again.
    await expectStatus(
      gate.api.call('POST', `/v1/connections/${connection.id}/reauthorize`, {
        token: gate.api.operatorKey,
        body: { credential: { type: 'bearer', token: upstreamToken } },
      }),
      200,
    );
    const fresh = await createRun(gate.api, seed, {
      invoked_by: id,
      tools: { connections: [{ id: connection.id }] },
    });
    const again = await expectStatus(
      toolCallUntilAnswered(gate.api, fresh, 'p4', {
        tool: 'mcp__dana__search_notes',
        arguments: { query: 'q' },
      }),
      200,
    );
    assert.equal(again.decision, 'allow');
  });

  test("a removal from the group that gave the role ends access at once; roles follow the provider's groups immediately", async () => {
    const id = await provision(rita);
    await joinGroup(approvers, id);
    const page = await signIn(rita);
    assert.match(await page.locator('header').innerText(), /Rita Mover \(approver\)/);

    await joinGroup(admins, id);
    assert.deepEqual(await membership(id), { role: 'admin', status: 'active' });
    // A standing approval she gives as an admin stands on that role.
    const token = await mintToken(page, 'rita');
    const run = await createRun(gate.api, seed);
    await expectStatus(
      toolCallUntilAnswered(gate.api, run, 'r1', {
        tool: 'Bash',
        arguments: { command: 'npm test' },
      }),
      202,
    );
    await expectStatus(
      gate.api.call('POST', `/v1/approvals/${run.session_id}/r1/decision`, {
        token,
        body: { decision: 'approve', grant: { for_s: null } },
      }),
      200,
    );
    await leaveGroup(admins, id);
    assert.deepEqual(await membership(id), { role: 'approver', status: 'active' });
    assert.equal(await sessionStatus(page), 200, 'a lower role keeps the session');
    assert.equal(await tokenStatus(token), 200, 'and the token');
    const { rows: grants } = await gate.db.query<{ revoked_because: string | null }>(
      'select revoked_because from approval_grants where granted_by = $1',
      [id],
    );
    assert.deepEqual(grants, [{ revoked_because: 'grantor_access_ended' }]);

    await leaveGroup(approvers, id);
    assert.deepEqual(await membership(id), { role: 'approver', status: 'suspended' });
    assert.equal(await sessionStatus(page), 401);
    const user = await scim('GET', `/Users/${id}`);
    assert.equal(user.body.groups, undefined, 'the User is in no group');

    // A deleted User is gone for the provider and stays suspended here, signing in or not.
    await joinGroup(approvers, id);
    assert.equal((await scim('DELETE', `/Users/${id}`)).status, 204);
    assert.equal((await scim('GET', `/Users/${id}`)).status, 404);
    assert.deepEqual(await membership(id), { role: 'approver', status: 'suspended' });
    const group = await scim('GET', `/Groups/${groupIds[approvers]}`);
    assert.ok(
      !(group.body.members ?? []).some((m: { value: string }) => m.value === id),
      'a deleted User leaves its groups',
    );
    const again = await signIn(rita);
    assert.match(await again.locator('main').innerText(), /none of your groups gives you a role/);
  });

  test("an operator's suspension holds through sign-ins and the provider's changes, and reactivation revives no token or session", async () => {
    const op = { token: gate.api.operatorKey };
    const member = (id: string) => `/v1/workspaces/${seed.workspace}/members/${id}`;
    const samId = await provision(sam);
    await joinGroup(approvers, samId);
    const nickPage = await signIn(nick);
    const { rows } = await gate.db.query<{ id: string }>(
      `select m.id from members m join people p on p.id = m.person_id
       where m.workspace_id = $1 and p.subject = $2`,
      [seed.workspace, nick.subject],
    );
    const nickId = rows[0]?.id ?? '';
    const samPage = await signIn(sam);
    const held = {
      [samId]: { page: samPage, token: await mintToken(samPage, 'ci'), who: sam },
      [nickId]: { page: nickPage, token: await mintToken(nickPage, 'ci'), who: nick },
    };

    for (const [id, { page, token, who }] of Object.entries(held)) {
      await expectStatus(
        gate.api.call('PATCH', member(id), { ...op, body: { status: 'suspended' } }),
        200,
      );
      assert.equal(await sessionStatus(page), 401);
      assert.equal(await tokenStatus(token), 401);
      // No sign-in lifts it: the groups claim still names the approvers, the provider says active.
      const refused = await signIn(who);
      assert.match(await refused.locator('main').innerText(), /suspended/);
      assert.equal((await membership(id))?.status, 'suspended');
    }
    const provider = await scim('PUT', `/Users/${samId}`, {
      schemas: ['urn:ietf:params:scim:schemas:core:2.0:User'],
      userName: sam.email,
      active: true,
    });
    assert.equal(provider.status, 200);
    await joinGroup(admins, samId);
    assert.deepEqual(await membership(samId), { role: 'admin', status: 'suspended' });

    for (const [id, { page, token, who }] of Object.entries(held)) {
      const back = await expectStatus(
        gate.api.call('PATCH', member(id), { ...op, body: { status: 'active' } }),
        200,
      );
      assert.equal(back.status, 'active');
      assert.equal(await sessionStatus(page), 401, 'the old session stays ended');
      assert.equal(await tokenStatus(token), 401, 'the old token stays revoked');
      assert.equal(await sessionStatus(await signIn(who)), 200, 'a new sign-in works');
      const types = (await accessEvents(id)).map((e) => `${e.type}/${e.actor}`);
      assert.ok(types.includes('member.suspended/operator'), types.join());
      assert.ok(types.includes('member.reactivated/operator'), types.join());
    }
  });

  test("the operator lists a member's personal tokens and web sessions and revokes them one by one", async () => {
    const page = await signIn(nick);
    const laptop = await mintToken(page, 'laptop');
    const ci = await mintToken(page, 'build');
    const { rows } = await gate.db.query<{ id: string }>(
      `select m.id from members m join people p on p.id = m.person_id
       where m.workspace_id = $1 and p.subject = $2`,
      [seed.workspace, nick.subject],
    );
    const base = `/v1/workspaces/${seed.workspace}/members/${rows[0]?.id ?? ''}`;
    const op = { token: gate.api.operatorKey };

    const tokens = await expectStatus(gate.api.call('GET', `${base}/tokens`, op), 200);
    const listed = tokens as { id: string; name: string; revoked_at: string | null }[];
    const named = (name: string) => listed.find((t) => t.name === name && t.revoked_at === null);
    assert.ok(named('laptop') && named('build'), JSON.stringify(listed));
    assert.ok(!JSON.stringify(listed).includes(laptop.slice(4)), 'no token is shown');
    await expectStatus(gate.api.call('DELETE', `${base}/tokens/${named('laptop')?.id}`, op), 204);
    assert.equal(await tokenStatus(laptop), 401);
    assert.equal(await tokenStatus(ci), 200, 'the other token still works');
    assert.equal(
      (await gate.api.call('DELETE', `${base}/tokens/${named('laptop')?.id}`, op)).status,
      404,
    );

    const sessions = await expectStatus<{ id: string }[]>(
      gate.api.call('GET', `${base}/sessions`, op),
      200,
    );
    assert.ok(sessions.length >= 1);
    for (const session of sessions) {
      await expectStatus(gate.api.call('DELETE', `${base}/sessions/${session.id}`, op), 204);
    }
    assert.equal(await sessionStatus(page), 401);
    assert.deepEqual(await expectStatus(gate.api.call('GET', `${base}/sessions`, op), 200), []);

    // Only the operator: not an admin's user token, and not another workspace's member.
    const asAdmin = await gate.api.call('GET', `${base}/tokens`, { token: seed.admin.token });
    assert.equal(asAdmin.status, 403);
    const other = await seedWorkspace(gate.api);
    const elsewhere = `/v1/workspaces/${other.workspace}/members/${rows[0]?.id ?? ''}/tokens`;
    assert.equal((await gate.api.call('GET', elsewhere, op)).status, 404);
  });
});
