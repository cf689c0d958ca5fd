/**
 * `/mcp` keeps nothing in a process: an API process killed between an approval and the
 * client's next look loses nothing, and another process answers the task and the retried call,
 * each carried out exactly once upstream.
 */
import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, test } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  CallToolResultSchema,
  CreateTaskResultSchema,
  type CallToolResult,
} from '@modelcontextprotocol/sdk/types.js';
import type { ManagedProcess } from '../../tools/devstack/child-process.js';
import { startApiProcess } from '../support/api-process.js';
import { useHarness } from '../support/harness.js';
import { startRugpullUpstream, type RugpullUpstream } from '../support/rugpull-upstream.js';
import { createRun, defaultPolicy, expectStatus, type CreatedRun } from '../support/seed.js';

const h = useHarness({
  policy: {
    ...defaultPolicy,
    name: 'remote-mcp-restart',
    rules: [{ id: 'notes-ask', match: { tool: 'mcp__notes__*' }, verdict: 'require_approval' }],
    default: 'deny',
  },
  api: { approvalRecheckS: 1, mcpApprovalWaitS: 2 },
});

const token = `secret-${randomBytes(12).toString('hex')}`;
let upstream: RugpullUpstream;
let run: CreatedRun;
let doomed: { process: ManagedProcess; url: string } | undefined;
const clients: Client[] = [];

const text = (result: CallToolResult) =>
  result.content.map((c) => (c.type === 'text' ? c.text : '')).join('');

async function connect(url: string): Promise<Client> {
  const client = new Client({ name: 'restart-test', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL('/mcp', url), {
      requestInit: { headers: { authorization: `Bearer ${run.session_token}` } },
    }),
  );
  clients.push(client);
  return client;
}

function approve(toolCallId: string) {
  return expectStatus(
    h.api.call('POST', `/v1/approvals/${run.session_id}/${toolCallId}/decision`, {
      token: h.seed.admin.token,
      body: { decision: 'approve' },
    }),
    200,
  );
}

describe('an API process killed between the approval and the poll', () => {
  beforeAll(async () => {
    upstream = await startRugpullUpstream({ token });
    const connection = await expectStatus(
      h.api.call('POST', '/v1/connections', {
        token: h.api.operatorKey,
        body: {
          workspace: h.seed.workspace,
          name: 'notes',
          kind: 'org',
          url: upstream.url,
          credential: { type: 'bearer', token },
        },
      }),
      201,
    );
    run = await createRun(h.api, h.seed, {
      tools: { bundles: [], connections: [{ id: connection.id }] },
    });
    const started = await startApiProcess('mcp-doomed-api', {
      GATE_OPERATOR_KEY: h.api.operatorKey,
      GATE_MCP_APPROVAL_WAIT_S: '2',
      GATE_APPROVAL_RECHECK_S: '1',
    });
    doomed = { process: started.process, url: started.api.url };
  });
  afterAll(async () => {
    for (const client of clients) await client.close().catch(() => undefined);
    await doomed?.process.stop('SIGKILL');
    await upstream.close();
  });

  test('the task and the plain call begun on the killed process are answered by another, each run upstream exactly once', async () => {
    assert.ok(doomed);
    const first = await connect(doomed.url);
    const { task } = await first.request(
      {
        method: 'tools/call',
        params: {
          name: 'mcp__notes__create_note',
          arguments: { title: 'as a task', body: 'b' },
          task: { ttl: 60_000 },
        },
      },
      CreateTaskResultSchema,
    );
    assert.equal(task.status, 'working');
    const plainArgs = { title: `plain ${randomUUID()}`, body: 'b' };
    const waited = (await first.callTool({
      name: 'mcp__notes__create_note',
      arguments: plainArgs,
    })) as CallToolResult;
    assert.equal(waited.isError, true);
    assert.match(text(waited), /Make the same call again/);
    const { rows } = await h.db.query<{ tool_call_id: string }>(
      `select tool_call_id from approvals where session_id = $1 and status = 'pending'`,
      [run.session_id],
    );
    assert.equal(rows.length, 2);
    const before = upstream.calls.length;

    for (const { tool_call_id } of rows) await approve(tool_call_id);
    await doomed.process.stop('SIGKILL');
    doomed = undefined;

    const second = await connect(h.api.url);
    const result = await second.request(
      { method: 'tasks/result', params: { taskId: task.taskId } },
      CallToolResultSchema,
      { timeout: 90_000 },
    );
    assert.equal(result.isError ?? false, false, text(result));
    assert.equal((await second.experimental.tasks.getTask(task.taskId)).status, 'completed');

    // The plain call, made again on the other process: re-attached until its result comes.
    let retried: CallToolResult | undefined;
    const deadline = Date.now() + 90_000;
    while (Date.now() < deadline) {
      retried = (await second.callTool({
        name: 'mcp__notes__create_note',
        arguments: plainArgs,
      })) as CallToolResult;
      if (!text(retried).includes('Make the same call again')) break;
    }
    assert.ok(retried);
    assert.equal(retried.isError ?? false, false, text(retried));
    assert.deepEqual(JSON.parse(text(retried)).arguments, plainArgs);

    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const made = upstream.calls.slice(before).map((c) => c.arguments.title);
    assert.deepEqual(made.sort(), ['as a task', plainArgs.title].sort(), 'each exactly once');
  });
});
