import pg from 'pg';
import type { BrowserContext, Page } from 'playwright-core';
import type { OidcClientConfig, WebSignIn } from '../../src/config.js';
import type { ApiLogger } from '../../src/api/server.js';
import { startTestApi, type TestApi } from './api.js';
import { testConfig } from './env.js';
import { freeLoopbackPort } from '../../tools/devstack/free-port.js';

export interface OidcGate {
  api: TestApi;
  db: pg.Pool;
  close(): Promise<void>;
}

/**
 * A gate whose people sign in at an identity provider the test starts: the provider needs the
 * gate's callback before it starts, the gate the provider's issuer.
 */
export async function startOidcGate(
  provider: (redirectUri: string) => Promise<OidcClientConfig>,
  web: Partial<Omit<WebSignIn, 'oidc'>> = {},
  options: { logger?: ApiLogger } = {},
): Promise<OidcGate> {
  const port = await freeLoopbackPort();
  const publicUrl = `http://127.0.0.1:${port}`;
  const oidc = await provider(`${publicUrl}/auth/oidc/callback`);
  const base = testConfig();
  const api = await startTestApi(
    { api: { ...base.api, publicUrl }, web: { ...base.web, ...web, oidc } },
    { port, ...options },
  );
  const db = new pg.Pool({ connectionString: base.databaseUrl });
  db.on('error', () => undefined);
  return {
    api,
    db,
    close: async () => {
      await api.close();
      await db.end();
    },
  };
}

/**
 * Signs in from the gate's sign-in page, picking the person at the provider (its page names
 * them); answers the page the gate lands on (the approvals when signed in, the callback's page
 * when refused).
 */
export async function signInAtProvider(
  context: BrowserContext,
  baseUrl: string,
  who: { name: string },
): Promise<Page> {
  const page = await context.newPage();
  await page.goto(`${baseUrl}/login`);
  await page.locator('#oidc-sign-in').click();
  // A second sign-in in the same browser finds the provider's session and skips its page.
  const choose = page.getByRole('button', { name: new RegExp(`^${who.name}`) });
  const back = page.waitForResponse((r) => r.url().startsWith(`${baseUrl}/auth/oidc/callback`));
  await Promise.race([choose.click(), back]);
  // Signed in, the callback's page moves on by itself; refused, it stays.
  if ((await back).status() === 200) {
    await page.waitForURL(`${baseUrl}/approvals`);
  } else {
    await page.waitForLoadState();
  }
  return page;
}
