/**
 * A decider is shown by the name the gate knows them by, unique in the workspace, never by the
 * name the identity provider sends at a sign-in; and the sign-in's secrets stay out of the log.
 * People sign in at the development provider in Chromium, as in oidc-sign-in.test.ts.
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
import { startOidcGate, type OidcGate } from '../support/oidc-gate.js';
import {
  addMember,
  askForBash,
  createRun,
  expectStatus,
  seedWorkspace,
  toolCallUntilAnswered,
  type Seed,
} from '../support/seed.js';

const approvers = `approvers-${randomUUID()}`;
const admins = `admins-${randomUUID()}`;
const person = (subject: string, name: string): DevPerson => ({
  subject: `${subject}-${randomUUID()}`,
  name,
  email: `${subject}@acme.test`,
  groups: [approvers],
});
// Two people the provider names alike, and one who will rename themselves as another member.
const samA = person('sam-a', 'Sam Same');
const samB = person('sam-b', 'Sam Same');
const ivy = person('ivy', 'Ivy Ivers');

let idp: DevIdentityProvider;
let gate: OidcGate;
let seed: Seed;
let browser: Browser;
const apiLog: string[] = [];
/** The callback URLs the browsers were sent back to, with their live codes and states. */
const callbacks: URL[] = [];

const url = (path: string) => `${gate.api.url}${path}`;

/** Signs in at the provider in a browser of its own and lands on the approvals. */
async function signIn(who: DevPerson): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext();
  const page = await context.newPage();
  page.on('request', (request) => {
    if (request.url().startsWith(url('/auth/oidc/callback')))
      callbacks.push(new URL(request.url()));
  });
  await page.goto(url('/login'));
  await page.locator('#oidc-sign-in').click();
  // The provider's page lists people by name, alike here: the button carries the subject.
  await page.locator(`button[name="subject"][value="${who.subject}"]`).click();
  await page.waitForURL(url('/approvals'));
  return { context, page };
}

/**
 * A call that asks, in a run of its own (what one approval may allow for its run stays there),
 * approved by `who` in the web form; answers the runner's reason.
 */
async function approvedBy(who: DevPerson, id: string): Promise<{ reason: string; header: string }> {
  const run = await createRun(gate.api, seed);
  await expectStatus(
    toolCallUntilAnswered(gate.api, run, id, { tool: 'Bash', arguments: { command: 'ls' } }),
    202,
  );
  const { context, page } = await signIn(who);
  try {
    const header = await page.locator('header').innerText();
    await page.goto(url(`/approvals/${run.session_id}/${id}`));
    await page.getByRole('button', { name: 'Approve', exact: true }).click();
    await page.locator('.notice.ok').waitFor();
    const answer = await expectStatus<{ reason: string }>(
      gate.api.call('GET', `/v1/sessions/${run.session_id}/tool-calls/${id}`, {
        token: run.session_token,
      }),
      200,
    );
    return { reason: answer.reason, header };
  } finally {
    await context.close();
  }
}

async function decidedByNames(): Promise<Record<string, string | null>> {
  const list = await expectStatus<{
    approvals: { tool_call_id: string; decided_by_name: string | null }[];
  }>(
    gate.api.call('GET', '/v1/approvals?status=decided&scope=all', { token: seed.admin.token }),
    200,
  );
  return Object.fromEntries(list.approvals.map((a) => [a.tool_call_id, a.decided_by_name]));
}

describe("a decider's shown name", () => {
  beforeAll(async () => {
    gate = await startOidcGate(
      async (redirectUri) => {
        idp = await startDevIdentityProvider({ redirectUri, people: [samA, samB, ivy] });
        return idp;
      },
      { tokenSignIn: false },
      { logger: { level: 'info', stream: { write: (line: string) => void apiLog.push(line) } } },
    );
    seed = await seedWorkspace(gate.api, askForBash);
    await expectStatus(
      gate.api.call('PUT', `/v1/workspaces/${seed.workspace}/identity`, {
        token: gate.api.operatorKey,
        body: { roles: { [approvers]: 'approver', [admins]: 'admin' } },
      }),
      200,
    );
    browser = await sharedChromium();
  });
  afterAll(async () => {
    await closeContexts(browser);
    await gate.close();
    await idp.close();
  });

  test('two people whose provider names them alike decide calls and are shown apart', async () => {
    const first = await approvedBy(samA, 'a1');
    const second = await approvedBy(samB, 'b1');
    assert.equal(first.reason, 'approved by Sam Same');
    assert.equal(second.reason, 'approved by Sam Same (2)');
    assert.match(second.header, /Sam Same \(2\) \(approver\)/);
    const names = await decidedByNames();
    assert.equal(names.a1, 'Sam Same');
    assert.equal(names.b1, 'Sam Same (2)');
  });

  test("a person who renames themselves at the provider as another member is still shown by their own name; an operator's member of a taken name gets one of their own", async () => {
    const before = await approvedBy(ivy, 'i1');
    assert.equal(before.reason, 'approved by Ivy Ivers');
    const renamed = idp.people.get(ivy.subject);
    assert.ok(renamed);
    // Renamed at the provider, and promoted there too: the membership changes, its name does not.
    renamed.name = 'Sam Same';
    renamed.groups = [admins];
    const after = await approvedBy(renamed, 'i2');
    assert.equal(after.reason, 'approved by Ivy Ivers');
    assert.match(after.header, /Ivy Ivers \(admin\)/);
    const names = await decidedByNames();
    assert.equal(names.i2, 'Ivy Ivers');
    assert.equal(names.a1, 'Sam Same');

    // Names are told apart whatever their case.
    const minted = await addMember(gate.api, seed.workspace, 'sam SAME', 'approver');
    const { rows } = await gate.db.query<{ name: string }>(
      'select name from members where id = $1',
      [minted.user_id],
    );
    assert.equal(rows[0]?.name, 'sam SAME (3)');
  });

  test("the API's request log never carries a sign-in callback's code or state", () => {
    assert.ok(callbacks.length >= 4, 'the sign-ins came back through the callback');
    const log = apiLog.join('');
    assert.match(log, /"url":"\/auth\/oidc\/callback\?code=…&state=…/);
    for (const callback of callbacks) {
      for (const name of ['code', 'state']) {
        const value = callback.searchParams.get(name);
        assert.ok(value && value.length >= 16, `the callback carried a ${name}`);
        assert.ok(!log.includes(value), `the log carries no ${name}`);
      }
    }
  });
});
