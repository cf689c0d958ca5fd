/**
 * The approvers' web form in real Chromium (Debian's package, installed by scripts/bootstrap.sh;
 * playwright-core never downloads a browser): sign in, watch a call arrive without a reload,
 * read it, approve it, and the waiting runner gets allow. Screenshots go to test-artifacts/.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, test } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { closeContexts, sharedChromium } from '../support/browser-pages.js';
import { useHarness } from '../support/harness.js';
import {
  createRun,
  defaultPolicy,
  expectStatus,
  toolCallUntilAnswered,
  type CreatedRun,
} from '../support/seed.js';

const artifacts = fileURLToPath(new URL('../../test-artifacts/', import.meta.url));
const hostile = '<img src=x onerror=alert(1)>';

const approvalPolicy = {
  ...defaultPolicy,
  name: 'approve-bash',
  rules: [
    { id: 'reads', match: { effect: 'read' }, verdict: 'allow' },
    { id: 'bash-needs-a-human', match: { tool: 'Bash' }, verdict: 'require_approval' },
  ],
  approval: { timeout_s: 600, on_timeout: 'deny' },
};

const h = useHarness({ api: { approvalRecheckS: 1 }, policy: approvalPolicy });
let browser: Browser;
let approver: { user_id: string; token: string };
let bystander: { user_id: string; token: string };
let run: CreatedRun;
let approverContext: BrowserContext;
let bystanderContext: BrowserContext;
let bystanderPage: Page;
let listPage: Page;
let detailPage: Page;
const dialogs: string[] = [];

async function addMember(name: string, role: 'member' | 'approver') {
  const created = await expectStatus(
    h.api.call('POST', `/v1/workspaces/${h.seed.workspace}/members`, {
      token: h.api.operatorKey,
      body: { name, role },
    }),
    201,
  );
  return { user_id: created.user_id as string, token: created.user_token as string };
}

async function newContext(): Promise<BrowserContext> {
  const context = await browser.newContext({ viewport: { width: 1100, height: 800 } });
  context.on('page', (page) => {
    page.on('dialog', (dialog) => {
      dialogs.push(dialog.message());
      void dialog.dismiss();
    });
  });
  return context;
}

async function signIn(context: BrowserContext, token: string): Promise<Page> {
  const page = await context.newPage();
  await page.goto(`${h.api.url}/login`);
  await page.fill('#token', token);
  await Promise.all([
    page.waitForURL(`${h.api.url}/approvals`),
    page.getByRole('button', { name: 'Sign in' }).click(),
  ]);
  return page;
}

async function approvalStatus(sessionId: string, toolCallId: string): Promise<string> {
  const { rows } = await h.db.query<{ status: string }>(
    'select status from approvals where session_id = $1 and tool_call_id = $2',
    [sessionId, toolCallId],
  );
  return rows[0]!.status;
}

/** The CSRF token of a signed-in page (every page carries one in its sign-out form). */
const csrfOf = async (page: Page) =>
  (await page.locator('header input[name="csrf"]').getAttribute('value'))!;

const decisionUrl = (toolCallId: string) =>
  `${h.api.url}/approvals/${run.session_id}/${toolCallId}/decision`;

describe('the approvers web form', () => {
  // Inside the suite: Node 20 runs top-level hooks concurrently, so these would not wait for the
  // harness's API. The browser also closes before the harness closes the API.
  beforeAll(async () => {
    mkdirSync(artifacts, { recursive: true });
    approver = await addMember('olga', 'approver');
    bystander = await addMember('mo', 'member');
    run = await createRun(h.api, h.seed, {
      source: { kind: 'manual', repository: 'acme/widgets' },
    });
    browser = await sharedChromium();
  });
  afterAll(async () => {
    await closeContexts(browser);
  });

  test('signing in sets a session cookie that is HttpOnly and SameSite=Strict, and scripts cannot read it', async () => {
    approverContext = await newContext();
    listPage = await signIn(approverContext, approver.token);
    const session = (await approverContext.cookies()).find((c) => c.name === 'fg_session');
    assert.ok(session, 'a session cookie is set');
    assert.equal(session.httpOnly, true);
    assert.equal(session.sameSite, 'Strict');
    assert.equal(session.path, '/');
    assert.equal(session.secure, false, 'plain http: Secure would make the browser drop it');
    // Evaluated in the page; a string, since the test's own types have no DOM.
    const pageCookies = await listPage.evaluate<string>('document.cookie');
    assert.equal(pageCookies.includes('fg_session'), false);
    const { rows } = await h.db.query('select 1 from web_sessions where id_hash = $1', [
      createHash('sha256').update(session.value).digest(),
    ]);
    assert.equal(rows.length, 1, 'only the hash of the session id is stored');
  });

  test('every HTML page is sent with a strict CSP, no framing and no referrer', async () => {
    for (const path of ['/approvals', '/login']) {
      const response = await approverContext.request.get(`${h.api.url}${path}`, {
        maxRedirects: 0,
      });
      const headers = response.headers();
      assert.match(headers['content-security-policy'] ?? '', /script-src 'self'/);
      assert.doesNotMatch(headers['content-security-policy'] ?? '', /unsafe-inline|unsafe-eval/);
      assert.equal(headers['x-frame-options'], 'DENY');
      assert.equal(headers['referrer-policy'], 'no-referrer');
    }
  });

  test('the JSON API keeps its problem+json answers and refuses form bodies', async () => {
    const unauthenticated = await h.api.call('GET', '/v1/approvals');
    assert.equal(unauthenticated.status, 401);
    assert.match(unauthenticated.headers.get('content-type') ?? '', /application\/problem\+json/);
    const form = await h.api.call('POST', `/v1/approvals/${run.session_id}/c0/decision`, {
      token: approver.token,
      raw: 'decision=approve',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    assert.equal(form.status, 415);
    assert.match(form.headers.get('content-type') ?? '', /application\/problem\+json/);
  });

  test('a call that needs approval appears in the open list without a reload', async () => {
    await listPage.locator('#live:not(.offline)').waitFor({ timeout: 10_000 });
    // A mark on the page's window: a reload would wipe it.
    await listPage.evaluate('window.notReloaded = true');
    assert.equal(await listPage.locator('#approvals tbody tr').count(), 0);

    await expectStatus(
      toolCallUntilAnswered(h.api, run, 'c1', { tool: 'Bash', arguments: { command: hostile } }),
      202,
    );
    const row = listPage.locator(`tr[data-session="${run.session_id}"][data-tool-call="c1"]`);
    await row.waitFor({ timeout: 10_000 });
    assert.equal(
      await listPage.evaluate<boolean | undefined>('window.notReloaded'),
      true,
      'the page was not reloaded',
    );
    const text = await row.innerText();
    for (const expected of ['Bash', hostile, 'bash-needs-a-human']) {
      assert.ok(text.includes(expected), `the row shows ${expected}: ${text}`);
    }
    // The run is named once, above its calls.
    const group = await listPage
      .locator(`section.run-group[data-run="${run.run_id}"] h2`)
      .innerText();
    for (const expected of ['acme/widgets', 'trusted', 'ana']) {
      assert.ok(group.includes(expected), `the run's heading shows ${expected}: ${group}`);
    }
    await listPage.screenshot({ path: `${artifacts}approvals-list.png`, fullPage: true });
  });

  test('the detail page shows the run, the tool, the rule, and the arguments as text, never as markup', async () => {
    detailPage = await approverContext.newPage();
    await detailPage.goto(`${h.api.url}/approvals`);
    await Promise.all([
      detailPage.waitForURL(`${h.api.url}/approvals/${run.session_id}/c1`),
      detailPage.locator(`tr[data-tool-call="c1"] a`).click(),
    ]);
    const body = await detailPage.locator('main').innerText();
    for (const expected of [
      'acme/widgets',
      'trusted',
      'ana',
      'Bash',
      'bash-needs-a-human',
      'approve-bash, version 1',
      'pending',
      'Expires',
    ]) {
      assert.ok(body.includes(expected), `the detail page shows ${expected}`);
    }
    assert.ok((await detailPage.locator('#arguments').innerText()).includes(hostile));
    assert.equal(await detailPage.locator('img').count(), 0, 'the argument made no element');
    assert.deepEqual(dialogs, [], 'no script ran');
    assert.equal(await detailPage.getByRole('button', { name: 'Approve' }).count(), 1);
    assert.equal(await detailPage.getByRole('button', { name: 'Deny' }).count(), 1);
    await detailPage.screenshot({ path: `${artifacts}approval-detail.png`, fullPage: true });
  });

  test('a member without authority sees neither the arguments nor buttons, and a post from them is 403', async () => {
    bystanderContext = await newContext();
    bystanderPage = await signIn(bystanderContext, bystander.token);
    const page = bystanderPage;
    assert.equal(await page.locator('#approvals tbody tr').count(), 0, 'nothing to decide');
    await page.goto(`${h.api.url}/approvals/${run.session_id}/c1`);
    assert.ok(await page.locator('#arguments-hidden').isVisible());
    assert.equal(await page.locator('#arguments').count(), 0);
    assert.ok(!(await page.locator('body').innerText()).includes(hostile));
    assert.equal(await page.getByRole('button', { name: 'Approve' }).count(), 0);
    assert.equal(await page.getByRole('button', { name: 'Deny' }).count(), 0);
    assert.ok(await page.locator('#no-authority').isVisible());

    const csrf = await csrfOf(page);
    const response = await bystanderContext.request.post(decisionUrl('c1'), {
      form: { csrf, decision: 'approve' },
    });
    assert.equal(response.status(), 403);
    assert.equal(await approvalStatus(run.session_id, 'c1'), 'pending');
  });

  test('a decision posted without or with a wrong CSRF token, or from another site, is 403 and changes nothing', async () => {
    const csrf = await csrfOf(detailPage);
    const attempts: { form: Record<string, string>; headers?: Record<string, string> }[] = [
      { form: { decision: 'approve' } },
      { form: { csrf: 'not-the-token', decision: 'approve' } },
      // Another member's valid token is still the wrong one for this session.
      { form: { csrf: await csrfOf(bystanderPage), decision: 'deny' } },
      { form: { csrf, decision: 'approve' }, headers: { origin: 'https://evil.example' } },
      // What a browser sends for another site's page with no-referrer: the origin withheld.
      {
        form: { csrf, decision: 'approve' },
        headers: { origin: 'null', 'sec-fetch-site': 'cross-site' },
      },
    ];
    for (const attempt of attempts) {
      const response = await approverContext.request.post(decisionUrl('c1'), attempt);
      assert.equal(response.status(), 403, JSON.stringify(attempt));
      assert.match(response.headers()['content-type'] ?? '', /text\/html/);
    }
    assert.equal(await approvalStatus(run.session_id, 'c1'), 'pending');
  });

  test('approving in the browser answers the waiting runner with allow, and the list drops the call', async () => {
    const waiting = h.api.call('GET', `/v1/sessions/${run.session_id}/tool-calls/c1?wait=20`, {
      token: run.session_token,
    });
    await new Promise((resolve) => setTimeout(resolve, 300));
    await detailPage.fill('#reason', 'looks fine');
    await Promise.all([
      detailPage.waitForURL(`${h.api.url}/approvals/${run.session_id}/c1/decision`),
      detailPage.getByRole('button', { name: 'Approve' }).click(),
    ]);
    assert.ok((await detailPage.locator('.notice').innerText()).includes('You approved this call'));
    assert.equal(await detailPage.getByRole('button', { name: 'Approve' }).count(), 0);
    await detailPage.screenshot({ path: `${artifacts}approval-decided.png`, fullPage: true });

    const answer = await expectStatus(waiting, 200);
    assert.equal(answer.decision, 'allow');
    assert.match(answer.reason, /approved by olga: looks fine/);
    assert.equal(await approvalStatus(run.session_id, 'c1'), 'approved');

    await listPage
      .locator(`tr[data-session="${run.session_id}"]`)
      .waitFor({ state: 'detached', timeout: 10_000 });
    assert.ok((await listPage.locator('#approvals').innerText()).includes('Nothing is waiting'));
  });

  test('deciding again after someone else decided shows a 409 page', async () => {
    const csrf = await csrfOf(detailPage);
    const response = await approverContext.request.post(decisionUrl('c1'), {
      form: { csrf, decision: 'deny' },
    });
    assert.equal(response.status(), 409);
    assert.match(await response.text(), /already decided/);
  });

  test('a suspended member is signed out at once', async () => {
    const page = bystanderPage;
    await expectStatus(
      h.api.call('PATCH', `/v1/workspaces/${h.seed.workspace}/members/${bystander.user_id}`, {
        token: h.api.operatorKey,
        body: { status: 'suspended' },
      }),
      200,
    );
    await page.goto(`${h.api.url}/approvals`);
    assert.match(page.url(), /\/login/);
    await page.fill('#token', bystander.token);
    await page.getByRole('button', { name: 'Sign in' }).click();
    assert.ok((await page.locator('.notice').innerText()).includes('suspended'));
  });

  test('a session expires', async () => {
    const context = await newContext();
    const page = await signIn(context, approver.token);
    const session = (await context.cookies()).find((c) => c.name === 'fg_session')!;
    await h.db.query(
      `update web_sessions set expires_at = created_at + interval '1 millisecond'
       where id_hash = $1`,
      [createHash('sha256').update(session.value).digest()],
    );
    await page.goto(`${h.api.url}/approvals`);
    assert.match(page.url(), /\/login/);
    await context.close();
  });

  test('signing in needs the sign-in form’s own CSRF token and a valid user token', async () => {
    const context = await newContext();
    const noToken = await context.request.post(`${h.api.url}/login`, {
      form: { token: approver.token },
    });
    assert.equal(noToken.status(), 403);
    const page = await context.newPage();
    await page.goto(`${h.api.url}/login`);
    await page.fill('#token', 'fgu_not-a-real-token');
    await page.getByRole('button', { name: 'Sign in' }).click();
    assert.ok((await page.locator('.notice').innerText()).includes('not a valid user token'));
    assert.equal(
      (await context.cookies()).some((c) => c.name === 'fg_session'),
      false,
    );
    await context.close();
  });

  test('signing out ends the session on the server, not only in the browser', async () => {
    const session = (await approverContext.cookies()).find((c) => c.name === 'fg_session')!;
    await Promise.all([
      listPage.waitForURL(`${h.api.url}/login`),
      listPage.getByRole('button', { name: 'Sign out' }).click(),
    ]);
    const replayed = await fetch(`${h.api.url}/approvals`, {
      headers: { cookie: `fg_session=${session.value}` },
      redirect: 'manual',
    });
    assert.equal(replayed.status, 303);
    assert.match(replayed.headers.get('location') ?? '', /^\/login/);
  });
});
