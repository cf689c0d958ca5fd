/**
 * The runner's side of a decision fails closed on an answer that is not one: a GATE_URL that
 * points at something else (a proxy's catch-all, a health endpoint, a stub) and answers 200 with
 * any JSON must never be read as "allowed".
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, test } from 'vitest';
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
