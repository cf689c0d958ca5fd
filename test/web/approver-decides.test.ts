/**
 * An approver decides well in seconds, in real Chromium: the list tells calls apart in one line;
 * the detail shows a shell command's parsed commands, an edit's diff, a file's content with its
 * line breaks, an MCP tool's description and argument titles; a deny carries a message the
 * runner's decision holds. Each page passes axe-core, works from the keyboard, and is
 * photographed at desktop and phone widths under test-artifacts/.
 */
import assert from 'node:assert/strict';
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
import {
  createRun,
  defaultPolicy,
  expectStatus,
  toolCallUntilAnswered,
  type CreatedRun,
} from '../support/seed.js';

const hostile = '<img src=x onerror=alert(1)>';
const fileTools = [
  {
    name: 'Bash',
    effect: 'write',
    input_schema: { type: 'object', properties: { command: { type: 'string' } } },
  },
  {
    name: 'Edit',
    effect: 'write',
    input_schema: {
      type: 'object',
      properties: {
        file_path: { type: 'string' },
        old_string: { type: 'string' },
        new_string: { type: 'string' },
      },
    },
  },
  {
    name: 'Write',
    effect: 'write',
    input_schema: {
      type: 'object',
      properties: { file_path: { type: 'string' }, content: { type: 'string' } },
    },
  },
  {
    name: 'mcp__jira__create_issue',
    effect: 'write',
    description: `Creates an issue. ${hostile}`,
    input_schema: {
      type: 'object',
      properties: {
        project: { type: 'string', title: 'Project key' },
        summary: { type: 'string', title: `Summary ${hostile}` },
      },
    },
  },
];
const policy = {
  ...defaultPolicy,
  name: 'ask-for-writes',
  rules: [{ id: 'writes-need-a-human', match: { effect: 'write' }, verdict: 'require_approval' }],
};

const h = useHarness({ policy });
const dialogs: string[] = [];
let browser: Browser;
let context: BrowserContext;
let page: Page;
let run: CreatedRun;

const detailUrl = (toolCallId: string) => `${h.api.url}/approvals/${run.session_id}/${toolCallId}`;

async function ask(toolCallId: string, tool: string, args: Record<string, unknown>) {
  await expectStatus(toolCallUntilAnswered(h.api, run, toolCallId, { tool, arguments: args }), 202);
}

/** The runner's final answer for a call, waiting for it as a runner does. */
const runnerAnswer = (toolCallId: string) =>
  expectStatus(
    h.api.call('GET', `/v1/sessions/${run.session_id}/tool-calls/${toolCallId}?wait=20`, {
      token: run.session_token,
    }),
    200,
  );

async function decide(toolCallId: string, button: 'Approve' | 'Deny with this message') {
  await Promise.all([
    page.waitForURL(`${detailUrl(toolCallId)}/decision`),
    page.getByRole('button', { name: button }).click(),
  ]);
}

describe('an approver decides well in seconds', () => {
  beforeAll(async () => {
    const bundle = await expectStatus(
      h.api.call('POST', '/v1/capability-bundles', {
        token: h.api.operatorKey,
        body: { workspace: h.seed.workspace, name: 'agent', version: '1', tools: fileTools },
      }),
      201,
    );
    run = await createRun(h.api, h.seed, {
      source: {
        kind: 'pull_request',
        repository: 'acme/widgets',
        pull_request: {
          base_repo: 'acme/widgets',
          head_repo: 'acme/widgets',
          number: 42,
          sender: 'ana',
        },
      },
      tools: { bundles: [bundle.id] },
    });
    browser = await sharedChromium();
    context = await newContext(browser, dialogs);
    page = await signIn(context, h.api.url, h.seed.admin.token);
  });
  afterAll(async () => {
    await closeContexts(browser);
  });

  test('the list tells two calls of one tool apart: each says what it does in one line, under its run', async () => {
    await ask('w1', 'Write', {
      file_path: '/repo/deploy.yaml',
      content: 'replicas: 3\nimage: a\n',
    });
    await ask('w2', 'Write', { file_path: '/repo/values.yaml', content: hostile });
    await page.goto(`${h.api.url}/approvals`);
    const line = (id: string) => page.locator(`tr[data-tool-call="${id}"] td.what`).innerText();
    assert.equal(await line('w1'), '/repo/deploy.yaml (3 lines)');
    assert.equal(await line('w2'), '/repo/values.yaml (1 line)');
    const heading = await page
      .locator(`section.run-group[data-run="${run.run_id}"] h2`)
      .innerText();
    for (const expected of ['acme/widgets', '#42', 'ana', 'trusted', '2 calls'])
      assert.ok(heading.includes(expected), `the run heading shows ${expected}: ${heading}`);
    assert.equal(
      await page.locator(`a[href="https://github.com/acme/widgets/pull/42"]`).count(),
      1,
      'the pull request is linked',
    );
    await assertAccessible(page, 'the list');
    await assertKeyboardReachable(page, 'the list');
    await screenshots(page, 'list');
  });

  test('a multi-line Write shows its path and content with real line breaks; hostile content stays text', async () => {
    await page.goto(detailUrl('w1'));
    assert.equal(
      await page.locator('#arguments pre.content').innerText(),
      'replicas: 3\nimage: a\n',
    );
    await page.goto(detailUrl('w2'));
    assert.equal(await page.locator('#arguments pre.content').innerText(), hostile);
    assert.equal(await page.locator('main img').count(), 0, 'the content made no element');
    await page.getByText('Raw JSON').click();
    assert.ok((await page.locator('#raw-json pre').innerText()).includes('"file_path"'));
    await assertAccessible(page, 'the detail of a write');
    await assertKeyboardReachable(page, 'the detail of a write');
    await screenshots(page, 'detail-write');
    await page.goto(detailUrl('w1'));
    await decide('w1', 'Approve');
    assert.equal((await runnerAnswer('w1')).decision, 'allow');
  });

  test('an approver reads a Bash call from its parsed commands and approves it with a key', async () => {
    await ask('b1', 'Bash', { command: 'sudo rm -rf /tmp/build && npm test -- --ci' });
    await page.goto(detailUrl('b1'));
    const commands = page.locator('#parsed-commands li');
    assert.equal(await commands.count(), 3);
    assert.match(await commands.nth(0).innerText(), /^sudo .*a wrapper/s);
    assert.match(await commands.nth(1).innerText(), /^rm -rf \/tmp\/build/);
    assert.match(await commands.nth(2).innerText(), /^npm test -- --ci/);
    assert.ok((await page.locator('#arguments').innerText()).includes('writes-need-a-human'));
    await screenshots(page, 'detail-bash');
    await Promise.all([page.waitForURL(`${detailUrl('b1')}/decision`), page.keyboard.press('a')]);
    assert.equal((await runnerAnswer('b1')).decision, 'allow');
  });

  test('an Edit shows as a unified diff of its old and new text, and is approved from it', async () => {
    await ask('e1', 'Edit', {
      file_path: '/repo/src/app.ts',
      old_string: 'const port = 80;\nlisten(port);',
      new_string: `const port = 8080;\nlisten(port);\n// ${hostile}`,
    });
    await page.goto(`${h.api.url}/approvals`);
    assert.equal(
      await page.locator('tr[data-tool-call="e1"] td.what').innerText(),
      '/repo/src/app.ts +2 −1',
    );
    await page.goto(detailUrl('e1'));
    const lines = await page.locator('#arguments pre.diff .line').allInnerTexts();
    assert.deepEqual(lines, [
      '-const port = 80;',
      '+const port = 8080;',
      ' listen(port);',
      `+// ${hostile}`,
    ]);
    assert.equal(await page.locator('main img').count(), 0);
    await assertAccessible(page, 'the detail of an edit');
    await screenshots(page, 'detail-edit');
    await decide('e1', 'Approve');
    assert.equal((await runnerAnswer('e1')).decision, 'allow');
  });

  test('an MCP tool shows its frozen description and each argument beside its schema title, as text', async () => {
    await ask('m1', 'mcp__jira__create_issue', { project: 'OPS', summary: 'Disk full' });
    await page.goto(detailUrl('m1'));
    assert.equal(
      await page.locator('#tool-description').innerText(),
      `Creates an issue. ${hostile}`,
    );
    const args = await page.locator('#arguments dl.arguments').innerText();
    for (const expected of ['project', 'Project key', 'OPS', `Summary ${hostile}`, 'Disk full'])
      assert.ok(args.includes(expected), `the arguments show ${expected}`);
    assert.equal(await page.locator('main img').count(), 0);
    await assertAccessible(page, 'the detail of an MCP tool');
    await screenshots(page, 'detail-mcp');
  });

  test('a deny carries a message to the agent: the runner reads it, the decided view shows it as text', async () => {
    const message = `use the staging project instead ${hostile}`;
    await page.goto(detailUrl('m1'));
    await page.keyboard.press('d');
    await page.keyboard.type(message);
    await Promise.all([
      page.waitForURL(`${detailUrl('m1')}/decision`),
      page.keyboard.press('Control+Enter'),
    ]);
    const answer = await runnerAnswer('m1');
    assert.equal(answer.decision, 'deny');
    assert.ok(String(answer.reason).includes(message), 'the runner decision carries the message');
    assert.ok((await page.locator('#outcome').innerText()).includes(message));

    await page.goto(`${h.api.url}/approvals?view=decided`);
    const row = page.locator('tr[data-tool-call="m1"]');
    assert.ok((await row.innerText()).includes(message));
    assert.equal(await page.locator('main img').count(), 0);
    assert.deepEqual(dialogs, [], 'no script ran');
    await assertAccessible(page, 'the decided view');
    await screenshots(page, 'decided');
  });

  test('the detail shows the run: its latest decisions, its budget and its pull request', async () => {
    await ask('b2', 'Bash', { command: 'npm run lint' });
    await page.goto(detailUrl('b2'));
    const decisions = await page.locator('#run-decisions tbody tr').allInnerTexts();
    assert.ok(
      decisions.some((row) => row.includes('mcp__jira__create_issue') && row.includes('deny')),
    );
    assert.ok(
      decisions.some((row) => row.includes('/repo/src/app.ts +2 −1') && row.includes('allow')),
    );
    assert.match(await page.locator('#budget').innerText(), /0 tokens used, 0 held, of 100,000/);
    assert.equal(
      await page.locator('#pull-request-link').getAttribute('href'),
      'https://github.com/acme/widgets/pull/42',
    );
    await assertAccessible(page, 'the detail of a Bash call');
    await assertKeyboardReachable(page, 'the detail of a Bash call');
  });
});
