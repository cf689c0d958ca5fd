/**
 * The runner's side of a decision fails closed on an answer that is not one: a GATE_URL that
 * points at something else (a proxy's catch-all, a health endpoint, a stub) and answers 200 with
 * any JSON must never be read as "allowed".
 */
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Agent, getGlobalDispatcher, setGlobalDispatcher } from 'undici';
import { afterAll, beforeAll, beforeEach, describe, test } from 'vitest';
import type { SyncHookJSONOutput } from '@anthropic-ai/claude-agent-sdk';
import { gateCanUseTool } from '../../src/runner/can-use-tool.js';
import { GateClient } from '../../src/runner/gate-client.js';
import { gatePreToolUseHook } from '../../src/runner/pre-tool-use-hook.js';

const notDecisions: unknown[] = [
  {},
  { ok: true },
  { status: 'decided' },
  { status: 'decided', decision: 'approve', reason: 'looks fine' },
  { status: 'decided', decision: 'allow' },
  [],
];

let server: Server;
let body: unknown;

const client = () =>
  new GateClient({
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    sessionId: 'sess-1',
    sessionToken: 'token',
  });

describe('an answer that is not a decision is never an allow', () => {
  beforeAll(async () => {
    server = createServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify(body));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  });
  afterAll(
    () =>
      new Promise<void>((resolve) =>
        server.close(() => {
          resolve();
        }),
      ),
  );

  test('the PreToolUse hook and canUseTool deny, and the client refuses it', async () => {
    const hook = gatePreToolUseHook(client(), { handOffAfterMs: 60_000 });
    const canUseTool = gateCanUseTool(client());
    const signal = new AbortController().signal;
    for (const answer of notDecisions) {
      body = answer;
      const output = (await hook(
        {
          hook_event_name: 'PreToolUse',
          session_id: 's',
          transcript_path: '/tmp/t.jsonl',
          cwd: '/srv/repo',
          tool_name: 'Bash',
          tool_input: { command: 'ls' },
          tool_use_id: 'toolu_1',
        },
        'toolu_1',
        { signal },
      )) as SyncHookJSONOutput;
      const hookDecision =
        output.hookSpecificOutput?.hookEventName === 'PreToolUse'
          ? output.hookSpecificOutput.permissionDecision
          : undefined;
      assert.equal(hookDecision, 'deny', JSON.stringify(answer));
      const permission = await canUseTool(
        'Bash',
        { command: 'ls' },
        { signal, toolUseID: 'toolu_1', requestId: 'r' },
      );
      assert.equal(permission?.behavior, 'deny', JSON.stringify(answer));
      await assert.rejects(
        client().decide('toolu_1', { tool: 'Bash', arguments: { command: 'ls' } }),
        /without a decision/,
        JSON.stringify(answer),
      );
    }
  });
});

describe('a redirect is an answer, not a way to a decision', () => {
  let redirecting: Server;
  const asked: string[] = [];
  beforeAll(async () => {
    redirecting = createServer((request, response) => {
      asked.push(`${request.method} ${request.url}`);
      if (request.url === '/elsewhere') {
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(JSON.stringify({ status: 'decided', decision: 'allow', reason: 'elsewhere' }));
        return;
      }
      // 307 keeps the method and the body: a client that followed it would PUT the call there.
      response.writeHead(307, { location: '/elsewhere' });
      response.end();
    });
    await new Promise<void>((resolve) => redirecting.listen(0, '127.0.0.1', resolve));
  });
  afterAll(
    () =>
      new Promise<void>((resolve) =>
        redirecting.close(() => {
          resolve();
        }),
      ),
  );

  test('the client refuses a 307 and never asks where it points', async () => {
    const redirected = new GateClient({
      baseUrl: `http://127.0.0.1:${(redirecting.address() as AddressInfo).port}`,
      sessionId: 'sess-1',
      sessionToken: 'token',
    });
    await assert.rejects(
      redirected.decide('toolu_1', { tool: 'Bash', arguments: { command: 'ls' } }),
      /refused the call \(307\)/,
    );
    assert.deepEqual(asked, ['PUT /v1/sessions/sess-1/tool-calls/toolu_1']);
  });
});

describe('a gate out of reach, busy or answering oddly: the same call again, or a deny', () => {
  let stub: Server;
  const asked: string[] = [];
  /** How the stub answers each request in turn; past the list, with the last. */
  let answers: ((request: IncomingMessage, response: ServerResponse) => void)[] = [];
  const json =
    (status: number, body: unknown) => (_: IncomingMessage, response: ServerResponse) => {
      response.writeHead(status, { 'content-type': 'application/json' });
      response.end(JSON.stringify(body));
    };
  const allow = json(200, { status: 'decided', decision: 'allow', reason: 'fine' });
  const pending = json(202, {
    status: 'pending_approval',
    approval: { url: 'http://gate.example/approvals/x', expires_at: '2030-01-01T00:00:00Z' },
  });
  const stubClient = (unavailableS?: number) =>
    new GateClient({
      baseUrl: `http://127.0.0.1:${(stub.address() as AddressInfo).port}`,
      sessionId: 'sess-1',
      sessionToken: 'token',
      ...(unavailableS !== undefined && { unavailableS }),
    });
  const call = { tool: 'Bash', arguments: { command: 'ls' } };

  beforeAll(async () => {
    stub = createServer((request, response) => {
      asked.push(`${request.method} ${request.url}`);
      const answer = answers[Math.min(asked.length - 1, answers.length - 1)];
      request.resume();
      request.on('end', () => answer?.(request, response));
    });
    await new Promise<void>((resolve) => stub.listen(0, '127.0.0.1', resolve));
  });
  afterAll(
    () =>
      new Promise<void>((resolve) => {
        stub.closeAllConnections();
        stub.close(() => {
          resolve();
        });
      }),
  );
  beforeEach(() => {
    asked.length = 0;
  });

  test('a connection reset before the answer: the same call is sent again and decided', async () => {
    answers = [(request) => request.socket.destroy(), allow];
    const answer = await stubClient().decide('toolu_1', call);
    assert.equal(answer.decision, 'allow');
    assert.deepEqual(asked, [
      'PUT /v1/sessions/sess-1/tool-calls/toolu_1',
      'PUT /v1/sessions/sess-1/tool-calls/toolu_1',
    ]);
  });

  test('nothing listening: sent again until its bound, then refused naming why', async () => {
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const { port } = probe.address() as AddressInfo;
    await new Promise<void>((resolve) =>
      probe.close(() => {
        resolve();
      }),
    );
    const unreachable = new GateClient({
      baseUrl: `http://127.0.0.1:${port}`,
      sessionId: 'sess-1',
      sessionToken: 'token',
      unavailableS: 1,
    });
    const started = Date.now();
    await assert.rejects(
      unreachable.decide('toolu_1', call),
      /could not be reached: .*ECONNREFUSED/,
    );
    assert.ok(Date.now() - started >= 900, `gave up after ${Date.now() - started} ms`);
  });

  test('a gate address that is no URL denies at once', async () => {
    for (const baseUrl of ['127.0.0.1:8080', 'gate.example:443']) {
      const wrong = new GateClient({
        baseUrl,
        sessionId: 's',
        sessionToken: 't',
        unavailableS: 60,
      });
      const started = Date.now();
      await assert.rejects(wrong.decide('toolu_1', call));
      assert.ok(
        Date.now() - started < 10_000,
        `${baseUrl}: denied after ${Date.now() - started} ms`,
      );
    }
  });

  test('a 429 while waiting on a person is waited out, as a 503 is', async () => {
    answers = [pending, json(429, { detail: 'waits at their cap' }), allow];
    const answer = await stubClient().decide('toolu_1', call);
    assert.equal(answer.decision, 'allow');
    assert.equal(asked.length, 3);
  });

  test('a 202 that is no pending approval is refused at once, never waited on in a loop', async () => {
    answers = [json(202, {})];
    await assert.rejects(stubClient().decide('toolu_1', call), /without a pending approval/);
    assert.equal(asked.length, 1);
    answers = [pending, json(202, { ok: true })];
    asked.length = 0;
    await assert.rejects(stubClient().decide('toolu_2', call), /without a pending approval/);
    assert.equal(asked.length, 2);
  });

  test('the process sets a dispatcher that follows redirects: the client still refuses one', async () => {
    const before = getGlobalDispatcher();
    setGlobalDispatcher(new Agent({ maxRedirections: 5 }));
    try {
      answers = [
        (_, response) => {
          response.writeHead(307, { location: '/elsewhere' });
          response.end();
        },
        allow,
      ];
      await assert.rejects(stubClient().decide('toolu_1', call), /refused the call \(307\)/);
      assert.equal(asked.length, 1);
    } finally {
      setGlobalDispatcher(before);
    }
  });
});
