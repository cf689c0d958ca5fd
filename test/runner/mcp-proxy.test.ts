/**
 * The gate MCP proxy driven by the MCP SDK's client over stdio, against the real API, worker,
 * @modelcontextprotocol/server-filesystem as a photographed sandbox bundle, a brokered
 * connection, and a sandbox server that changes a tool mid-run.
 */
import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, test } from 'vitest';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { projectRoot } from '../../tools/devstack/stack-config.js';
import { nodeEntryArgs } from '../../tools/devstack/node-entry.js';
import { connectProxy, type ConnectedProxy } from '../support/gate-mcp-proxy.js';
import { useHarness } from '../support/harness.js';
import { relativeFilesystemServer, writeHostileRepo } from '../support/hostile-repo.js';
import { startRugpullUpstream, type RugpullUpstream } from '../support/rugpull-upstream.js';
import { createRun, defaultPolicy, expectStatus, type CreatedRun } from '../support/seed.js';

const h = useHarness({
  policy: {
    ...defaultPolicy,
    name: 'proxy',
    rules: [
      { id: 'fs-reads', match: { tool: 'mcp__fs__*', effect: 'read' }, verdict: 'allow' },
      { id: 'fsrel-reads', match: { tool: 'mcp__fsrel__*', effect: 'read' }, verdict: 'allow' },
      {
        id: 'fs-write-asks',
        match: {
          tool: 'mcp__fs__write_file',
          args: [{ path: '/path', op: 'glob', value: '*approve-me*' }],
        },
        verdict: 'require_approval',
      },
      { id: 'fs-writes-denied', match: { tool: 'mcp__fs__write_file' }, verdict: 'deny' },
      { id: 'notes', match: { tool: 'mcp__notes__*' }, verdict: 'allow' },
      { id: 'drifting', match: { tool: 'mcp__drifting__*' }, verdict: 'allow' },
      { id: 'drifting-asks', match: { tool: 'mcp__asking__*' }, verdict: 'require_approval' },
    ],
    default: 'deny',
  },
  api: { approvalRecheckS: 1 },
});

const driftingServer = fileURLToPath(new URL('../support/drifting-mcp-server.ts', import.meta.url));
const token = `secret-${randomBytes(12).toString('hex')}`;
let dir: string;
let upstream: RugpullUpstream;
let run: CreatedRun;
let controlFile: string;
let askingControlFile: string;
let notesConnection: string;
const proxies: ConnectedProxy[] = [];

const op = () => ({ token: h.api.operatorKey });
const text = (result: CallToolResult) =>
  result.content.map((c) => (c.type === 'text' ? c.text : '')).join('');
const call = (proxy: ConnectedProxy, name: string, args: Record<string, unknown>, id?: string) =>
  proxy.client.callTool({
    name,
    arguments: args,
    ...(id && { _meta: { 'fluidbox/toolCallId': id } }),
  }) as Promise<CallToolResult>;

async function proxyFor(origin: string, forRun = run, cwd?: string) {
  // From a working directory of its own, the bin itself, as an MCP client starts it.
  const proxy = await connectProxy(h.api.url, forRun, origin, { ...(cwd && { cwd, bin: true }) });
  proxies.push(proxy);
  return proxy;
}

async function bundle(name: string, command: { cmd: string; args: string[] }) {
  const created = await expectStatus(
    h.api.call('POST', '/v1/capability-bundles', {
      ...op(),
      body: { workspace: h.seed.workspace, name, version: randomUUID(), command },
    }),
    201,
  );
  return created.id as string;
}

async function ledger(sessionId: string) {
  const page = await expectStatus(h.api.call('GET', `/v1/sessions/${sessionId}/events`, op()), 200);
  return page.events as { type: string; data: Record<string, unknown> }[];
}

describe('the gate MCP proxy, driven by the MCP SDK client', () => {
  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'gate-proxy-'));
    writeFileSync(path.join(dir, 'hello.txt'), 'hello from the sandbox');
    controlFile = path.join(dir, 'drift-now');
    upstream = await startRugpullUpstream({ token });
    const fs = await bundle('fs', {
      cmd: path.join(projectRoot, 'node_modules/.bin/mcp-server-filesystem'),
      args: [dir],
    });
    const drifting = await bundle('drifting', {
      cmd: process.execPath,
      args: [...nodeEntryArgs(driftingServer), controlFile],
    });
    askingControlFile = path.join(dir, 'drift-while-asking');
    const asking = await bundle('asking', {
      cmd: process.execPath,
      args: [...nodeEntryArgs(driftingServer), askingControlFile],
    });
    const notes = await expectStatus(
      h.api.call('POST', '/v1/connections', {
        ...op(),
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
    notesConnection = notes.id;
    run = await createRun(h.api, h.seed, {
      tools: { bundles: [fs, drifting, asking], connections: [{ id: notes.id }] },
    });
  });
  afterAll(async () => {
    for (const proxy of proxies) await proxy.close().catch(() => undefined);
    await upstream.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test('it lists exactly the frozen tools of its origin, under the names the gate decides', async () => {
    const proxy = await proxyFor('fs');
    const { tools } = await proxy.client.listTools();
    const frozen = run.tools.filter((t) => t.name.startsWith('mcp__fs__')).map((t) => t.name);
    assert.deepEqual(tools.map((t) => `mcp__fs__${t.name}`).sort(), frozen.sort());
    const read = tools.find((t) => t.name === 'read_text_file');
    assert.equal(read?.annotations?.readOnlyHint, true);
  });

  test('sandbox calls reach server-filesystem only when the gate allows them, under the client id', async () => {
    const proxy = await proxyFor('fs');
    const id = `read-${randomUUID()}`;
    const read = await call(proxy, 'read_text_file', { path: path.join(dir, 'hello.txt') }, id);
    assert.equal(read.isError ?? false, false);
    assert.match(text(read), /hello from the sandbox/);
    const denied = await call(proxy, 'write_file', {
      path: path.join(dir, 'written.txt'),
      content: 'x',
    });
    assert.equal(denied.isError, true);
    assert.match(text(denied), /fs-writes-denied/);
    assert.equal(existsSync(path.join(dir, 'written.txt')), false, 'a denied write never ran');
    const events = await ledger(run.session_id);
    const requested = events.find((e) => e.type === 'tool.requested' && e.data.tool_call_id === id);
    assert.equal(requested?.data.tool, 'mcp__fs__read_text_file');
  });

  test('a brokered call returns the governed result; the credential is nowhere in the proxy', async () => {
    const proxy = await proxyFor('notes');
    const result = await call(proxy, 'create_note', { title: 't', body: 'b' });
    assert.equal(result.isError ?? false, false, text(result));
    assert.deepEqual(JSON.parse(text(result)), {
      tool: 'create_note',
      arguments: { title: 't', body: 'b' },
    });
    assert.equal(upstream.calls.at(-1)?.authorization, `Bearer ${token}`);
    const environ = readFileSync(`/proc/${proxy.pid}/environ`, 'utf8');
    assert.equal(environ.includes(token), false, 'not in the environment');
    assert.equal(JSON.stringify(result).includes(token), false, 'not in its output');
    assert.equal(proxy.logs().includes(token), false, 'not in its logs');
  });

  test("a revoked run's proxy carries out nothing more: each call is a tool error naming the gate's 401", async () => {
    const revocable = await createRun(h.api, h.seed, {
      tools: { bundles: [], connections: [{ id: notesConnection }] },
    });
    const proxy = await proxyFor('notes', revocable);
    const first = await call(proxy, 'create_note', { title: 't', body: 'b' });
    assert.equal(first.isError ?? false, false, text(first));
    const reached = upstream.calls.length;
    await expectStatus(h.api.call('POST', `/v1/runs/${revocable.run_id}/revoke`, op()), 200);
    const refused = await call(proxy, 'create_note', { title: 't2', body: 'b' });
    assert.equal(refused.isError, true);
    assert.match(text(refused), /401/);
    assert.equal(upstream.calls.length, reached, 'the server was not called');
  });

  test("the sandbox's server holds no credential: not even the session token", async () => {
    const proxy = await proxyFor('fs');
    const children = readFileSync(`/proc/${proxy.pid}/task/${proxy.pid}/children`, 'utf8')
      .trim()
      .split(/\s+/)
      .filter(Boolean);
    assert.equal(children.length, 1, 'one server started');
    const environ = readFileSync(`/proc/${children[0]}/environ`, 'utf8').split('\0');
    assert.deepEqual(
      environ.filter(Boolean).map((entry) => entry.split('=')[0]),
      ['PATH'],
    );
  });

  test("a stranger's working directory puts no code into the proxy or its sandbox servers", async () => {
    const repo = mkdtempSync(path.join(tmpdir(), 'gate-proxy-repo-'));
    const markers = writeHostileRepo(repo);
    const relative = await bundle('fsrel', { cmd: relativeFilesystemServer, args: [dir] });
    const relativeRun = await createRun(h.api, h.seed, { tools: { bundles: [relative] } });
    const proxy = await proxyFor('fsrel', relativeRun, repo);
    const read = await call(proxy, 'read_text_file', { path: path.join(dir, 'hello.txt') });
    assert.equal(read.isError ?? false, false, text(read));
    assert.match(text(read), /hello from the sandbox/);
    assert.equal(
      existsSync(markers.proxyMarker),
      false,
      "the repo's tsconfig.json reached no import",
    );
    assert.equal(
      existsSync(markers.serverMarker),
      false,
      "the repo's node_modules/.bin ran nothing",
    );
    rmSync(repo, { recursive: true, force: true });
  });

  test('bad input is a tool error, never a crash: an unfrozen tool, arguments failing the schema, a huge one', async () => {
    const proxy = await proxyFor('fs');
    const unknown = await call(proxy, 'format_disk', {});
    assert.equal(unknown.isError, true);
    assert.match(text(unknown), /not in the run's frozen tool set/);
    const bad = await call(proxy, 'read_text_file', { path: 5 });
    assert.equal(bad.isError, true);
    assert.match(text(bad), /do not match the schema/);
    const huge = await call(proxy, 'read_text_file', { path: 'x'.repeat(4 * 1024 * 1024) });
    assert.equal(huge.isError, true);
    const fine = await call(proxy, 'read_text_file', { path: path.join(dir, 'hello.txt') });
    assert.equal(fine.isError ?? false, false, 'the proxy still serves');
  });

  test('a pending approval waits with progress, survives the proxy restarting, and re-attaches to the one approval', async () => {
    const id = `approve-${randomUUID()}`;
    const target = path.join(dir, 'approve-me.txt');
    const args = { path: target, content: 'approved' };
    const first = await proxyFor('fs');
    const progress: string[] = [];
    const waiting = first.client
      .callTool(
        { name: 'write_file', arguments: args, _meta: { 'fluidbox/toolCallId': id } },
        undefined,
        {
          onprogress: (p) => progress.push(p.message ?? ''),
          timeout: 120_000,
        },
      )
      .then(
        () => 'answered',
        () => 'broken',
      );
    await until(async () => (await approvalRows(id)) === 1 && progress.length > 0);
    assert.match(progress[0] ?? '', /waiting for an approval/);
    process.kill(first.pid, 'SIGKILL');
    assert.equal(await waiting, 'broken');
    assert.equal(existsSync(target), false);

    const second = await proxyFor('fs');
    const resumedProgress: string[] = [];
    const resumed = second.client.callTool(
      { name: 'write_file', arguments: args, _meta: { 'fluidbox/toolCallId': id } },
      undefined,
      { onprogress: (p) => resumedProgress.push(p.message ?? ''), timeout: 120_000 },
    ) as Promise<CallToolResult>;
    // Approved only once the resumed call waits on the same, still pending, approval.
    await until(() => Promise.resolve(resumedProgress.length > 0));
    assert.match(resumedProgress[0] ?? '', /waiting for an approval/);
    await approve(id);
    const result = await resumed;
    assert.equal(result.isError ?? false, false, text(result));
    assert.equal(readFileSync(target, 'utf8'), 'approved');
    assert.equal(await approvalRows(id), 1, 'one approval, re-attached');
    const requested = (await ledger(run.session_id)).filter(
      (e) => e.type === 'tool.requested' && e.data.tool_call_id === id,
    );
    assert.equal(requested.length, 1);
  });

  test('a sandbox server that changes a tool mid-run: the changed tool is refused as capability, the others keep working', async () => {
    const proxy = await proxyFor('drifting');
    const before = await call(proxy, 'shifty', { text: 'one' });
    assert.equal(before.isError ?? false, false, text(before));
    writeFileSync(controlFile, 'now');
    await proxy.logged(/announced tools\/list_changed: changed mcp__drifting__shifty/);
    const id = `shifty-${randomUUID()}`;
    const after = await call(proxy, 'shifty', { text: 'two' }, id);
    assert.equal(after.isError, true);
    assert.match(text(after), /drifted since the run froze it/);
    const stable = await call(proxy, 'stable', { text: 'three' });
    assert.equal(stable.isError ?? false, false, text(stable));
    assert.match(text(stable), /three/);
    const decision = (await ledger(run.session_id)).find(
      (e) => e.type === 'tool.decision' && e.data.tool_call_id === id,
    );
    assert.deepEqual([decision?.data.decision, decision?.data.source], ['deny', 'capability']);
  });

  test('a server announcing list_changed a thousand times is listed a few times, not a thousand', async () => {
    const proxy = await proxyFor('drifting');
    const storm = await call(proxy, 'storm', {});
    assert.equal(storm.isError ?? false, false, text(storm));
    const listings = Number(text(storm));
    assert.ok(listings >= 1 && listings <= 10, `listed ${listings} times`);
    const stable = await call(proxy, 'stable', { text: 'after the storm' });
    assert.match(text(stable), /after the storm/);
  });

  test('a tool that changes while its call waits for an approval is not carried out, even once approved', async () => {
    const proxy = await proxyFor('asking');
    const id = `asking-${randomUUID()}`;
    const answer = call(proxy, 'shifty', { text: 'before the change' }, id);
    await until(async () => (await approvalRows(id)) === 1);
    writeFileSync(askingControlFile, 'now');
    await proxy.logged(/announced tools\/list_changed: changed mcp__asking__shifty/);
    await approve(id);
    const result = await answer;
    assert.equal(result.isError, true, text(result));
    assert.doesNotMatch(text(result), /shifty: /, 'the changed server never received the call');
    assert.match(text(result), /drifted since the run froze it/);
  });
});

async function approve(toolCallId: string): Promise<void> {
  await expectStatus(
    h.api.call('POST', `/v1/approvals/${run.session_id}/${toolCallId}/decision`, {
      token: h.seed.admin.token,
      body: { decision: 'approve' },
    }),
    200,
  );
}

async function approvalRows(toolCallId: string): Promise<number> {
  const { rows } = await h.db.query(
    'select count(*)::int as n from approvals where session_id = $1 and tool_call_id = $2',
    [run.session_id, toolCallId],
  );
  return rows[0].n as number;
}

async function until(check: () => Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
