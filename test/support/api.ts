import type { AddressInfo } from 'node:net';
import { createApi } from '../../src/api/main.js';
import type { ApiLogger } from '../../src/api/server.js';
import { freeLoopbackPort } from '../../tools/devstack/free-port.js';
import { testConfig, testOperatorKey, type ConfigOverrides } from './env.js';

export interface HttpAnswer<T = any> {
  status: number;
  body: T;
  headers: Headers;
}

/**
 * A real API listening on a free loopback port, talking to the test stack. A test that brings
 * its own worker on its own task queue (to kill it, or to inject faults) gets an API that hosts
 * none, so every workflow runs on that worker; it may still ask for one.
 */
export async function startTestApi(
  overrides: ConfigOverrides = {},
  options: {
    gateWaitMs?: number;
    logger?: ApiLogger;
    /** A port chosen beforehand when the API's public URL must be known before it starts. */
    port?: number;
    /** Listen where the API tells people to come (its public URL): for pages it links to. */
    atPublicUrl?: boolean;
  } = {},
) {
  const ownWorker = overrides.temporal?.taskQueue !== undefined;
  const config = testConfig({ ...(ownWorker && { eagerStart: false }), ...overrides });
  const chosen = options.port ?? (options.atPublicUrl ? await freeLoopbackPort() : 0);
  if (options.atPublicUrl) config.api = { ...config.api, publicUrl: `http://127.0.0.1:${chosen}` };
  const operatorKey = testOperatorKey(config);
  // A 500 prints its error: what nobody foresaw is read off the run that met it.
  const app = createApi(config, operatorKey, { logger: { level: 'error' }, ...options });
  await app.listen({ host: '127.0.0.1', port: chosen });
  const { port } = app.server.address() as AddressInfo;
  const url = `http://127.0.0.1:${port}`;

  const { call } = apiCaller(url, operatorKey);
  return { app, url, config, operatorKey, call, close: () => app.close() };
}

export type TestApi = Awaited<ReturnType<typeof startTestApi>>;

/** What the seed helpers need of an API: where it is, the operator's key, and a way to call it. */
export interface ApiCaller {
  url: string;
  operatorKey: string;
  call: <T = any>(
    method: string,
    path: string,
    options?: { token?: string; body?: unknown; raw?: string; headers?: Record<string, string> },
  ) => Promise<HttpAnswer<T>>;
}

/** Calls an API at `url` (in this process or another one). */
export function apiCaller(url: string, operatorKey: string): ApiCaller {
  async function call<T = any>(
    method: string,
    path: string,
    {
      token,
      body,
      raw,
      headers = {},
    }: { token?: string; body?: unknown; raw?: string; headers?: Record<string, string> } = {},
  ): Promise<HttpAnswer<T>> {
    const init: RequestInit = { method, headers: { ...headers } };
    const h = init.headers as Record<string, string>;
    if (token) h.authorization = `Bearer ${token}`;
    if (body !== undefined || raw !== undefined) {
      h['content-type'] ??= 'application/json';
      init.body = raw ?? JSON.stringify(body);
    }
    const response = await fetch(url + path, init);
    const text = await response.text();
    let parsed: unknown = text;
    try {
      parsed = JSON.parse(text);
    } catch {
      // not JSON: keep the text
    }
    return { status: response.status, body: parsed as T, headers: response.headers };
  }

  return { url, operatorKey, call };
}
