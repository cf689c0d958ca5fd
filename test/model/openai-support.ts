import { randomUUID } from 'node:crypto';
import OpenAI from 'openai';
import type { ApiCaller, TestApi } from '../support/api.js';
import { expectStatus, type Seed } from '../support/seed.js';

/** An `openai`-kind provider pointing at `baseUrl`, with a key made up for this test. */
export async function createOpenAIProvider(
  api: ApiCaller,
  seed: Seed,
  baseUrl: string,
  options: { allow_url_sources?: boolean } = {},
) {
  const key = `sk-test-${randomUUID()}`;
  const created = await expectStatus<{ id: string; kind: string }>(
    api.call('POST', '/v1/model-providers', {
      token: api.operatorKey,
      body: {
        workspace: seed.workspace,
        name: `oa-${randomUUID().slice(0, 8)}`,
        kind: 'openai',
        base_url: baseUrl,
        credential: { type: 'api_key', key },
        ...options,
      },
    }),
    201,
  );
  return { id: created.id, kind: created.kind, key };
}

/** The official `openai` client pointed at the gate, the session token as its API key. */
export function openaiClient(api: TestApi, sessionToken: string) {
  return new OpenAI({ baseURL: `${api.url}/openai/v1`, apiKey: sessionToken, maxRetries: 0 });
}

/** A raw POST to the gate's OpenAI endpoint. */
export async function postOpenAI(
  api: ApiCaller,
  path: '/v1/chat/completions' | '/v1/responses',
  body: string | Buffer,
  headers: Record<string, string> = {},
) {
  const response = await fetch(`${api.url}/openai${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
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

export const chatRequest = (extra: Record<string, unknown> = {}) => ({
  model: 'gpt-4o-mini',
  messages: [{ role: 'user', content: 'Say hello.' }],
  ...extra,
});

export const responsesRequest = (extra: Record<string, unknown> = {}) => ({
  model: 'gpt-4.1',
  input: 'Say hello.',
  ...extra,
});
