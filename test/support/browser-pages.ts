/**
 * What the approvers' browser tests share: Debian's Chromium through playwright-core (never a
 * downloaded browser), signing in, axe-core on a page, screenshots at desktop and phone widths.
 */
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';

export const artifacts = fileURLToPath(new URL('../../test-artifacts/', import.meta.url));

let chromiumOfProcess: Promise<Browser> | undefined;

/**
 * The test process's Chromium, launched on its first use and kept for the files after it (a
 * process runs its files one after another): a launch costs more CPU than most files' pages. A
 * file opens contexts of its own and ends them with `closeContexts`; Playwright ends the browser
 * when the process exits.
 */
export function sharedChromium(): Promise<Browser> {
  mkdirSync(artifacts, { recursive: true });
  chromiumOfProcess ??= chromium
    .launch({ executablePath: '/usr/bin/chromium', headless: true })
    .then(
      (browser) => {
        browser.on('disconnected', () => {
          chromiumOfProcess = undefined;
        });
        return browser;
      },
      (err: unknown) => {
        chromiumOfProcess = undefined;
        throw err;
      },
    );
  return chromiumOfProcess;
}

/** How long the contexts get to close before the whole browser goes (the next file starts one). */
const contextsCloseMs = 20_000;

/**
 * Ends every context the file opened on the shared browser: its pages, cookies and streams. A
 * context that does not close in time (seen beside a second suite, Chromium starved of CPU) takes
 * the browser with it, so that no file waits on another's.
 */
export async function closeContexts(browser: Browser | undefined): Promise<void> {
  if (!browser) return;
  const closed = Promise.all(browser.contexts().map((context) => context.close()));
  closed.catch(() => undefined);
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>((resolve) => {
    timer = setTimeout(() => {
      resolve('late');
    }, contextsCloseMs);
  });
  try {
    if ((await Promise.race([closed, late])) !== 'late') return;
  } finally {
    clearTimeout(timer);
  }
  process.stderr.write(
    `the browser's contexts were still closing after ${contextsCloseMs} ms: the browser is closed\n`,
  );
  chromiumOfProcess = undefined;
  await browser.close();
}

/** A context whose pages record every dialog (a script that ran would open one). */
export async function newContext(browser: Browser, dialogs: string[]): Promise<BrowserContext> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  context.on('page', (page) => {
    page.on('dialog', (dialog) => {
      dialogs.push(dialog.message());
      void dialog.dismiss();
    });
  });
  return context;
}

export async function signIn(context: BrowserContext, baseUrl: string, token: string) {
  const page = await context.newPage();
  await page.goto(`${baseUrl}/login`);
  await page.fill('#token', token);
  await Promise.all([
    page.waitForURL(`${baseUrl}/approvals`),
    page.getByRole('button', { name: 'Sign in' }).click(),
  ]);
  return page;
}

const axeSource = readFileSync(
  createRequire(import.meta.url).resolve('axe-core/axe.min.js'),
  'utf8',
);

/**
 * axe-core on the page as it is: no serious or critical violation. Evaluated through the
 * browser's debugging protocol, so the page's CSP (no inline script) stays as it is.
 */
export async function assertAccessible(page: Page, name: string): Promise<void> {
  await page.evaluate(`${axeSource}\n;0`);
  const violations = await page.evaluate<{ id: string; impact: string; targets: string[] }[]>(
    `axe.run(document, { resultTypes: ['violations'] }).then((r) => r.violations.map((v) => ({
      id: v.id, impact: v.impact, targets: v.nodes.map((n) => String(n.target)) })))`,
  );
  const grave = violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  assert.deepEqual(grave, [], `${name}: axe finds no serious or critical violation`);
}

/** The page at a desktop and a phone width, written under test-artifacts/. */
export async function screenshots(page: Page, name: string): Promise<void> {
  const viewport = page.viewportSize();
  await page.setViewportSize({ width: 1280, height: 900 });
  await page.screenshot({ path: `${artifacts}${name}-desktop.png`, fullPage: true });
  await page.setViewportSize({ width: 390, height: 844 });
  await page.screenshot({ path: `${artifacts}${name}-phone.png`, fullPage: true });
  // Nothing wider than the phone's screen: the page reflows rather than scrolling sideways.
  const overflow = await page.evaluate<number>(
    'document.documentElement.scrollWidth - document.documentElement.clientWidth',
  );
  assert.ok(overflow <= 0, `${name}: no sideways scrolling on a phone (${overflow}px)`);
  if (viewport) await page.setViewportSize(viewport);
}

/**
 * Every control of the page takes the focus by Tab alone: links, buttons, fields and "show all"
 * summaries, each reached in a walk through the page. A group of radio buttons is one stop, at
 * its checked choice: the others are reached from it by the arrow keys.
 */
export async function assertKeyboardReachable(page: Page, name: string): Promise<void> {
  const controls = await page.evaluate<number>(
    `(() => { let i = 0; for (const el of document.querySelectorAll('a[href], button, textarea, input:not([type=hidden]):not([type=radio]), input[type=radio]:checked, select, summary')) {
      if (el.offsetParent !== null) el.setAttribute('data-control', String(i++)); } return i; })()`,
  );
  await page.evaluate('document.activeElement && document.activeElement.blur()');
  const reached = new Set<string>();
  for (let i = 0; i < controls + 5; i += 1) {
    await page.keyboard.press('Tab');
    const mark = await page.evaluate<string | null>(
      "document.activeElement && document.activeElement.getAttribute('data-control')",
    );
    if (mark !== null) reached.add(mark);
  }
  assert.equal(reached.size, controls, `${name}: every control is reached by Tab`);
}
