import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import pg from 'pg';
import type { OidcClientConfig, WebSignIn } from '../../src/config.js';
import type { ApiLogger } from '../../src/api/server.js';
import { startTestApi, type TestApi } from './api.js';
import { testConfig } from './env.js';

/** A loopback port free right now, for an API whose public URL must be known before it starts. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

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
  const port = await freePort();
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
