import { randomUUID } from 'node:crypto';
import Anthropic from '@anthropic-ai/sdk';
import type { ApiCaller, TestApi } from '../support/api.js';
import type { ModelProxyLimits } from '../../src/config.js';
import { testConfig } from '../support/env.js';
import { createRun, expectStatus, type Seed } from '../support/seed.js';

/** A provider pointing at `baseUrl`, with a key made up for this test. */
export async function createProvider(api: ApiCaller, seed: Seed, baseUrl: string) {
  const key = `sk-ant-test-${randomUUID()}`;
  const created = await expectStatus<{ id: string }>(
    api.call('POST', '/v1/model-providers', {
      token: api.operatorKey,
      body: {
        workspace: seed.workspace,
        name: `p-${randomUUID().slice(0, 8)}`,
        kind: 'anthropic',
        base_url: baseUrl,
        credential: { type: 'api_key', key },
      },
    }),
    201,
  );
  // The scripted upstream's models have no published price: they are charged at this one.
  await expectStatus(
    api.call('PUT', `/v1/model-providers/${created.id}/fallback-price`, {
      token: api.operatorKey,
      body: testFallbackPrice,
    }),
    200,
  );
  return { id: created.id, key };
}

/** What a test provider charges for models without a price: $1 in, $5 out per million tokens. */
export const testFallbackPrice = {
  input: '1',
  output: '5',
  cache_write: '1.25',
  cache_read: '0.10',
};

export function createModelRun(api: ApiCaller, seed: Seed, providerId: string, maxTokens: number) {
  return createRun(api, seed, {
    model_provider: providerId,
    budget: { max_tokens: maxTokens },
  });
}

/** The official SDK pointed at the gate, the session token as its API key. */
export function gateClient(api: TestApi, sessionToken: string) {
  return new Anthropic({ baseURL: `${api.url}/anthropic`, apiKey: sessionToken, maxRetries: 0 });
}

/** A raw POST to the gate's model endpoint. */
export async function postMessages(
  api: ApiCaller,
  body: string | Buffer,
  headers: Record<string, string> = {},
  path = '/anthropic/v1/messages',
) {
  const response = await fetch(api.url + path, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'anthropic-version': '2023-06-01', ...headers },
    body,
  });
  const text = await response.text();
  let json: any;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: response.status, headers: response.headers, text, json };
}

export const smallRequest = (maxTokens = 100, extra: Record<string, unknown> = {}) => ({
  model: 'claude-fake-1',
  max_tokens: maxTokens,
  messages: [{ role: 'user', content: 'Say hello.' }],
  ...extra,
});

/** Reads a stream to its end; returns how many events it carried. */
export async function drain(stream: unknown): Promise<number> {
  const iterator = (stream as AsyncIterable<unknown>)[Symbol.asyncIterator]();
  let events = 0;
  while (!(await iterator.next()).done) events += 1;
  return events;
}

/** The test stack's model-proxy limits with some changed, for an API of a test's own. */
export function proxyLimits(changes: Partial<ModelProxyLimits>): ModelProxyLimits {
  return { ...testConfig().modelProxy, ...changes };
}
