import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, test } from 'vitest';
import { budgetOf, reservationsOf } from '../budget/support.js';
import { startFakeAnthropic, text, type FakeAnthropic } from '../support/fake-anthropic.js';
import { useHarness } from '../support/harness.js';
import { createRun, expectStatus, toolCallUntilAnswered } from '../support/seed.js';
import {
  createModelRun,
  createProvider,
  gateClient,
  postMessages,
  smallRequest,
} from './support.js';

const h = useHarness();
let fake: FakeAnthropic;

beforeAll(async () => {
  fake = await startFakeAnthropic(() => text('should not be reached'));
});
afterAll(async () => {
  await fake.close();
});

type Answer = Awaited<ReturnType<typeof postMessages>>;

function assertAnthropicError(answer: Answer, status: number, type: string, what: string) {
  assert.equal(answer.status, status, `${what}: ${answer.text.slice(0, 300)}`);
  assert.equal(answer.json?.type, 'error', what);
  assert.equal(answer.json?.error?.type, type, what);
  assert.equal(typeof answer.json?.error?.message, 'string', what);
  assert.equal(answer.headers.get('x-should-retry'), 'false', what);
}

/** Sends headers announcing a body and never the body: the answer must not wait for it. */
function headersOnly(port: number, headers: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => {
      socket.write(headers);
    });
    let received = '';
    socket.on('data', (chunk) => {
      received += chunk.toString('utf8');
      if (received.includes('\r\n\r\n')) {
        socket.destroy();
        resolve(received);
      }
    });
    socket.on('error', reject);
    setTimeout(() => {
      socket.destroy();
      reject(new Error('no answer without the body'));
    }, 5_000);
  });
}

describe('bad input to the model endpoint gets an Anthropic-shaped 4xx and books nothing', () => {
  test('credentials: none, the operator key, a user token, an unknown session token, a run without a provider', async () => {
    const provider = await createProvider(h.api, h.seed, fake.url);
    const run = await createModelRun(h.api, h.seed, provider.id, 100_000);
    const withoutProvider = await createRun(h.api, h.seed);
    const body = JSON.stringify(smallRequest());
    const cases: [string, Record<string, string>, number, string][] = [
      ['no token', {}, 401, 'authentication_error'],
      ['the operator key', { 'x-api-key': h.api.operatorKey }, 401, 'authentication_error'],
      ["a member's user token", { 'x-api-key': h.seed.admin.token }, 401, 'authentication_error'],
      [
        'an unknown session token',
        { 'x-api-key': 'fgs_not-a-real-token' },
        401,
        'authentication_error',
      ],
      [
        'two different tokens at once',
        {
          'x-api-key': run.session_token,
          authorization: `Bearer ${withoutProvider.session_token}`,
        },
        401,
        'authentication_error',
      ],
      [
        "another run's token, a run with no provider",
        { 'x-api-key': withoutProvider.session_token },
        403,
        'permission_error',
      ],
      [
        'the same, as a Bearer token',
        { authorization: `Bearer ${withoutProvider.session_token}` },
        403,
        'permission_error',
      ],
    ];
    for (const [what, headers, status, type] of cases)
      assertAnthropicError(await postMessages(h.api, body, headers), status, type, what);
    for (const r of [run, withoutProvider]) {
      assert.equal((await reservationsOf(h.db, r.session_id)).length, 0);
      assert.deepEqual(await budgetOf(h.db, r.run_id), {
        max_tokens: 100_000,
        held_tokens: 0,
        used_tokens: 0,
      });
    }
    assert.equal(fake.messages().length, 0);
  });

  test('the token is checked before the body is read: no token answers 401 at once, without waiting for a 16 MiB body that never comes', async () => {
    const port = Number(new URL(h.api.url).port);
    const answer = await headersOnly(
      port,
      `POST /anthropic/v1/messages HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\ncontent-length: ${16 * 1024 * 1024}\r\n\r\n`,
    );
    assert.match(answer, /^HTTP\/1\.1 401 /);
    const malformed = await postMessages(h.api, Buffer.alloc(16 * 1024 * 1024 - 1024, '{'));
    assertAnthropicError(
      malformed,
      401,
      'authentication_error',
      'a malformed 16 MiB body, no token',
    );
  });

  test('a run without a model provider is refused before its body is read, its token kept or not', async () => {
    const withoutProvider = await createRun(h.api, h.seed);
    // Kept by the API: its token has acted for its run there.
    await expectStatus(
      toolCallUntilAnswered(h.api, withoutProvider, 'c1', {
        tool: 'Read',
        arguments: { file_path: 'a' },
      }),
      200,
    );
    const port = Number(new URL(h.api.url).port);
    const answer = await headersOnly(
      port,
      `POST /anthropic/v1/messages HTTP/1.1\r\nhost: 127.0.0.1\r\nx-api-key: ${withoutProvider.session_token}\r\ncontent-type: application/json\r\ncontent-length: ${16 * 1024 * 1024}\r\n\r\n`,
    );
    assert.match(answer, /^HTTP\/1\.1 403 /);
  });

  test('bodies: malformed, too large, duplicated members, unknown fields, unboundable parts, impossible sizes', async () => {
    const provider = await createProvider(h.api, h.seed, fake.url);
    const run = await createModelRun(h.api, h.seed, provider.id, 100_000);
    const auth = { 'x-api-key': run.session_token };
    const json = (value: unknown) => JSON.stringify(value);
    const cases: [string, string | Buffer, number, string, RegExp?][] = [
      ['not JSON', '{"model":', 400, 'invalid_request_error'],
      ['an empty body', '', 400, 'invalid_request_error'],
      [
        'not UTF-8',
        Buffer.from([0x7b, 0x22, 0xff, 0x22, 0x3a, 0x31, 0x7d]),
        400,
        'invalid_request_error',
      ],
      ['a JSON array', '[]', 400, 'invalid_request_error'],
      [
        'max_tokens twice (the last one smaller)',
        '{"model":"m","max_tokens":100000,"max_tokens":1,"messages":[{"role":"user","content":"x"}]}',
        400,
        'invalid_request_error',
        /max_tokens.*twice/,
      ],
      [
        'no max_tokens',
        json({ ...smallRequest(), max_tokens: undefined }),
        400,
        'invalid_request_error',
        /max_tokens/,
      ],
      ['max_tokens 0', json(smallRequest(0)), 400, 'invalid_request_error', /max_tokens/],
      [
        'max_tokens as a string',
        json({ ...smallRequest(), max_tokens: '10' }),
        400,
        'invalid_request_error',
        /max_tokens/,
      ],
      [
        'a model that is prose',
        json({ ...smallRequest(), model: 'be brief' }),
        400,
        'invalid_request_error',
        /model/,
      ],
      [
        'no messages',
        json({ ...smallRequest(), messages: [] }),
        400,
        'invalid_request_error',
        /messages/,
      ],
      [
        'an MCP server the gate cannot bound',
        json({
          ...smallRequest(),
          mcp_servers: [{ type: 'url', url: 'https://example.com', name: 'x' }],
        }),
        400,
        'invalid_request_error',
        /mcp_servers/,
      ],
      [
        'a server tool',
        json({ ...smallRequest(), tools: [{ type: 'web_search_20250305', name: 'web_search' }] }),
        400,
        'invalid_request_error',
        /tools/,
      ],
      [
        'max_tokens beyond the whole allowance',
        json(smallRequest(100_001)),
        400,
        'invalid_request_error',
        /whole allowance/,
      ],
      [
        'a PDF on a budget smaller than a context window',
        json({
          ...smallRequest(),
          messages: [
            {
              role: 'user',
              content: [
                {
                  type: 'document',
                  source: { type: 'base64', media_type: 'application/pdf', data: 'JVBERi0=' },
                },
              ],
            },
          ],
        }),
        400,
        'invalid_request_error',
        /PDF/,
      ],
      ['a body over 16 MiB', Buffer.alloc(16 * 1024 * 1024 + 1, ' '), 413, 'request_too_large'],
    ];
    for (const [what, body, status, type, message] of cases) {
      const answer = await postMessages(h.api, body, auth);
      assertAnthropicError(answer, status, type, what);
      if (message) assert.match(answer.json.error.message, message, what);
    }
    const unknown = await postMessages(h.api, json(smallRequest()), auth, '/anthropic/v1/models');
    assertAnthropicError(unknown, 404, 'not_found_error', 'an endpoint the gate does not have');

    assert.equal((await reservationsOf(h.db, run.session_id)).length, 0);
    assert.deepEqual(await budgetOf(h.db, run.run_id), {
      max_tokens: 100_000,
      held_tokens: 0,
      used_tokens: 0,
    });
    assert.equal(fake.messages().length, 0);
  });

  test('budget exhausted is a 402 billing_error the SDK reports at once, without retrying', async () => {
    const provider = await createProvider(h.api, h.seed, fake.url);
    const run = await createModelRun(h.api, h.seed, provider.id, 20_000);
    let release!: () => void;
    fake.setScript(() => ({
      ...text('slow'),
      waitFor: new Promise<void>((resolve) => {
        release = resolve;
      }),
    }));
    const holder = postMessages(h.api, JSON.stringify(smallRequest(15_000)), {
      'x-api-key': run.session_token,
    });
    while ((await reservationsOf(h.db, run.session_id)).length === 0)
      await new Promise((resolve) => setTimeout(resolve, 20));
    const client = gateClient(h.api, run.session_token).withOptions({ maxRetries: 3 });
    await assert.rejects(client.messages.create(smallRequest(10_000) as never), (err: unknown) => {
      const refusal = err as { status?: number; error?: { error?: { type?: string } } };
      assert.equal(refusal.status, 402);
      assert.equal(refusal.error?.error?.type, 'billing_error');
      return true;
    });
    release();
    assert.equal((await holder).status, 200);
    const rows = await reservationsOf(h.db, run.session_id);
    assert.deepEqual(rows.map((r) => r.status).sort(), ['reconciled', 'refused']);
    assert.equal(fake.messages().length, 1);
  });

  test('a token the gate keeps, its run revoked since: refused as refused whatever the body or the path, and kept no more', async () => {
    const provider = await createProvider(h.api, h.seed, fake.url);
    fake.setScript(() => text('kept'));
    const reachedBefore = fake.messages().length;
    const body = JSON.stringify(smallRequest());
    const cases: [string, string, string][] = [
      ['a request the provider would take', body, '/anthropic/v1/messages'],
      ['a malformed body', '{"model":', '/anthropic/v1/messages'],
      ['an empty body', '', '/anthropic/v1/messages'],
      ['a path the gate does not serve', body, '/anthropic/v1/nothing'],
      ['a count of tokens', body, '/anthropic/v1/messages/count_tokens'],
    ];
    for (const [what, sent, path] of cases) {
      // Kept: the gate answered this token once, so its next request's body is read at once.
      const run = await createModelRun(h.api, h.seed, provider.id, 100_000);
      const auth = { 'x-api-key': run.session_token };
      assert.equal((await postMessages(h.api, body, auth)).status, 200, what);
      await expectStatus(
        h.api.call('POST', `/v1/runs/${run.run_id}/revoke`, { token: h.api.operatorKey }),
        200,
      );
      assertAnthropicError(
        await postMessages(h.api, sent, auth, path),
        401,
        'authentication_error',
        what,
      );
      assert.equal(
        (await reservationsOf(h.db, run.session_id)).length,
        1,
        `${what}: the first request's alone`,
      );

      // Refused once, kept no more: a body that never comes is not waited for.
      const port = Number(new URL(h.api.url).port);
      const answer = await headersOnly(
        port,
        `POST /anthropic/v1/messages HTTP/1.1\r\nhost: 127.0.0.1\r\nx-api-key: ${run.session_token}\r\ncontent-type: application/json\r\ncontent-length: ${16 * 1024 * 1024}\r\n\r\n`,
      );
      assert.match(answer, /^HTTP\/1\.1 401 /, what);
    }
    assert.equal(fake.messages().length, reachedBefore + cases.length, 'only the first requests');
  });
});
