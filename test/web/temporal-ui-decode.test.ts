/**
 * The Temporal UI of the dev stack (the test profile's: the same Temporal server arguments, the
 * same codec endpoint) in real Chromium: an operator signed in to the gate's web app reads a gate
 * workflow's arguments, result and approver's reason decoded; a workspace member signed in the
 * same way reads ciphertext. Screenshots go to test-artifacts/.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, test } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { closeContexts, sharedChromium } from '../support/browser-pages.js';
import type { ManagedProcess } from '../../tools/devstack/child-process.js';
import { loadStackConfig, stackProfile } from '../../tools/devstack/stack-config.js';
import { temporalUiOrigin } from '../../tools/devstack/stack-environment.js';
import type { ApiCaller } from '../support/api.js';
import { startApiProcess } from '../support/api-process.js';
import {
  askForBash,
  createRun,
  expectStatus,
  seedWorkspace,
  toolCallUntilAnswered,
} from '../support/seed.js';

const artifacts = fileURLToPath(new URL('../../test-artifacts/', import.meta.url));
const profile = stackProfile(loadStackConfig(), 'test');
const uiOrigin = temporalUiOrigin(profile);
const argument = `argument-${randomUUID()}`;
const reason = `reason-${randomUUID()}`;

let apiProcess: ManagedProcess;
let api: ApiCaller;
let browser: Browser;
let member: { token: string };
let workflowId: string;

beforeAll(async () => {
  mkdirSync(artifacts, { recursive: true });
  // On the port the stack's Temporal UI was told the codec is at, as `npm run dev` runs it.
  ({ process: apiProcess, api } = await startApiProcess(
    'ui-api',
    { GATE_OPERATOR_KEY: `fgo_${randomUUID()}` },
    { port: profile.api.port },
  ));
  const seed = await seedWorkspace(api, askForBash);
  const created = await expectStatus(
    api.call('POST', `/v1/workspaces/${seed.workspace}/members`, {
      token: api.operatorKey,
      body: { name: 'mo', role: 'member' },
    }),
    201,
  );
  member = { token: created.user_token as string };
  const run = await createRun(api, seed);
  await expectStatus(
    toolCallUntilAnswered(api, run, 'deploy', {
      tool: 'Bash',
      arguments: { command: `deploy ${argument}` },
    }),
    202,
  );
  await expectStatus(
    api.call('POST', `/v1/approvals/${run.session_id}/deploy/decision`, {
      token: seed.admin.token,
      body: { decision: 'approve', reason },
    }),
    200,
  );
  const final = await api.call('GET', `/v1/sessions/${run.session_id}/tool-calls/deploy?wait=30`, {
    token: run.session_token,
  });
  assert.equal(final.body.decision, 'allow');
  workflowId = `gate/${run.session_id}/deploy`;
  browser = await sharedChromium();
});
afterAll(async () => {
  await closeContexts(browser);
  await apiProcess.stop();
});

/**
 * A browser signed in to the gate's web app with `token`, on the workflow's page in the UI, and
 * the statuses of the codec's answers to that page.
 */
async function workflowPageAs(token: string): Promise<{ page: Page; codec: number[] }> {
  const context = await browser.newContext({ viewport: { width: 1400, height: 1600 } });
  const page = await context.newPage();
  const codec: number[] = [];
  page.on('response', (response) => {
    if (new URL(response.url()).pathname === '/codec/decode') codec.push(response.status());
  });
  await page.goto(`${api.url}/login`);
  await page.fill('#token', token);
  await Promise.all([
    page.waitForLoadState('load'),
    page.getByRole('button', { name: 'Sign in' }).click(),
  ]);
  await page.goto(
    `${uiOrigin}/namespaces/${profile.temporal.namespace}/workflows/${encodeURIComponent(workflowId)}`,
  );
  return { page, codec };
}

const couldNotConnect = (page: Page) =>
  page.locator('#content').getByText('Codec Server could not connect');
/** What the UI shows of a payload it could not decode: its encoding, in base64. */
const ciphertext = Buffer.from('binary/encrypted').toString('base64');

describe('the Temporal UI decodes for operators', () => {
  test("a signed-in operator reads a gate workflow's arguments, result and approver's reason decoded in the Temporal UI", async () => {
    const { page, codec } = await workflowPageAs(api.operatorKey);
    await page.getByText(argument).first().waitFor({ timeout: 30_000 });
    await page.getByText(reason).first().waitFor({ timeout: 30_000 });
    await page.screenshot({ path: `${artifacts}temporal-ui-operator.png`, fullPage: true });
    assert.equal(await couldNotConnect(page).count(), 0);
    assert.ok(
      codec.length > 0 && codec.every((status) => status === 200),
      `codec: ${codec.join()}`,
    );
  });

  test('a workspace member signed in to the web app reads none of it: the codec refuses their session', async () => {
    const { page, codec } = await workflowPageAs(member.token);
    await couldNotConnect(page).waitFor({ timeout: 30_000 });
    await page.getByText(ciphertext).first().waitFor({ timeout: 30_000 });
    await page.screenshot({ path: `${artifacts}temporal-ui-member.png`, fullPage: true });
    const text = await page.locator('body').innerText();
    assert.ok(!text.includes(argument) && !text.includes(reason));
    // Their cookie reached the codec (a 403, not a 401): it is who they are that is refused.
    assert.ok(
      codec.length > 0 && codec.every((status) => status === 403),
      `codec: ${codec.join()}`,
    );
  });
});
