/**
 * A web session's idle limit counts what the person does, not what a page does by itself: the
 * approvals page's live stream, woken again and again, renews nothing, so a page left open runs
 * out; a person's own requests renew it. The limit is shortened by configuration to 4 s.
 */
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, test } from 'vitest';
import type { Browser } from 'playwright-core';
import { closeContexts, newContext, sharedChromium, signIn } from '../support/browser-pages.js';
import { startTestApi, type TestApi } from '../support/api.js';
import { testConfig } from '../support/env.js';
import { addMember, expectStatus, seedWorkspace, type Seed } from '../support/seed.js';

const idleS = 4;
let api: TestApi;
let seed: Seed;
let browser: Browser;
const dialogs: string[] = [];

beforeAll(async () => {
  const base = testConfig();
  api = await startTestApi({ web: { ...base.web, tokenSignIn: true, sessionIdleS: idleS } });
  seed = await seedWorkspace(api);
  browser = await sharedChromium();
});
afterAll(async () => {
  await closeContexts(browser);
  await api.close();
});

/** For longer than the idle limit, something happens every second. */
async function forLongerThanIdle(each: () => Promise<void>) {
  const until = Date.now() + (idleS + 3) * 1000;
  while (Date.now() < until) {
    await each();
    await sleep(1_000);
  }
}

describe('the idle limit of a web session', () => {
  test("an open approvals page whose stream wakes every second runs out at the idle limit: the stream's checks are not the person's", async () => {
    const page = await signIn(await newContext(browser, dialogs), api.url, seed.admin.token);
    const other = await addMember(api, seed.workspace, 'otto', 'member');
    let role = 'approver';
    // Each change of a member wakes the workspace's streams, which check the session.
    await forLongerThanIdle(async () => {
      role = role === 'approver' ? 'member' : 'approver';
      await expectStatus(
        api.call('PATCH', `/v1/workspaces/${seed.workspace}/members/${other.user_id}`, {
          token: api.operatorKey,
          body: { role },
        }),
        200,
      );
    });
    assert.equal((await page.request.get(`${api.url}/approvals/list`)).status(), 401);
  });

  test("a person's own requests renew the session", async () => {
    const page = await signIn(await newContext(browser, dialogs), api.url, seed.admin.token);
    await forLongerThanIdle(async () => {
      assert.equal((await page.request.get(`${api.url}/approvals`)).status(), 200);
    });
    assert.equal((await page.request.get(`${api.url}/approvals/list`)).status(), 200);
  });
});
