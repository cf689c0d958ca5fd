/**
 * The example runner in its scripted mode, against a real API as it would run against
 * `npm run dev`: it creates its run, its agent reads (allowed) and then waits for a person to
 * approve a Bash call, and goes on once approved.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, test } from 'vitest';
import { projectRoot } from '../../tools/devstack/stack-config.js';
import { nodeEntryArgs } from '../../tools/devstack/node-entry.js';
import { startTestApi, type TestApi } from '../support/api.js';
import { expectStatus } from '../support/seed.js';

let api: TestApi;
beforeAll(async () => {
  api = await startTestApi({ approvalRecheckS: 1 });
});
afterAll(async () => {
  await api.close();
});

test('examples/agent-sdk-runner.ts --scripted: reads pass, a Bash call waits for a person, then runs', async () => {
  const child = spawn(
    process.execPath,
    [...nodeEntryArgs(path.join(projectRoot, 'examples/agent-sdk-runner.ts')), '--scripted'],
    {
      cwd: projectRoot,
      // Its own process group, so the agent it starts goes with it.
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, GATE_API_URL: api.url, GATE_OPERATOR_KEY: api.operatorKey },
    },
  );
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  try {
    let approverToken: string | undefined;
    let pending: { session_id: string; tool_call_id: string } | undefined;
    const deadline = Date.now() + 60_000;
    while (!pending) {
      assert.ok(Date.now() < deadline, `no approval was asked for:\n${output}`);
      approverToken ??= /approver's token (\S+)/.exec(output)?.[1];
      if (approverToken) {
        const list = await expectStatus(
          api.call('GET', '/v1/approvals?status=pending', { token: approverToken }),
          200,
        );
        pending = list.approvals[0];
      }
      if (!pending) await new Promise((resolve) => setTimeout(resolve, 200));
    }
    assert.match(output, /result: .*The gate decides every tool call/, 'the read was allowed');
    const agentProcesses = agentSdkProcesses(child.pid!);
    assert.ok(agentProcesses.length > 0, 'the agent runs while it waits');
    for (const pid of agentProcesses) {
      assert.equal(
        environOf(pid).includes(api.operatorKey),
        false,
        `the operator key is not in the environment of the agent's process ${pid}`,
      );
    }
    await expectStatus(
      api.call('POST', `/v1/approvals/${pending.session_id}/${pending.tool_call_id}/decision`, {
        token: approverToken!,
        body: { decision: 'approve' },
      }),
      200,
    );
    assert.equal(await exited, 0, output);
    assert.match(output, /done: success/);
    const workdir = /in (\/\S+)\n/.exec(output)?.[1];
    assert.ok(workdir, output);
    assert.equal(
      readFileSync(path.join(workdir, 'hello.txt'), 'utf8'),
      'hello from a gated agent\n',
    );
    rmSync(workdir, { recursive: true, force: true });
  } finally {
    try {
      if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
});

/**
 * The agent SDK's own process (the `claude` executable) in a process group, and everything it
 * started: the agent's side of the runner (Linux /proc).
 */
function agentSdkProcesses(group: number): number[] {
  const processes = readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .flatMap((entry) => {
      try {
        // The fields after the command's closing parenthesis: state, ppid, pgrp, ...
        const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
        const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
        const argv0 = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0')[0] ?? '';
        return Number(fields[2]) === group
          ? [
              {
                pid: Number(entry),
                ppid: Number(fields[1]),
                agent: path.basename(argv0) === 'claude',
              },
            ]
          : [];
      } catch {
        return [];
      }
    });
  const agent = new Set(processes.filter((p) => p.agent).map((p) => p.pid));
  for (let grew = true; grew;) {
    grew = false;
    for (const p of processes) {
      if (!agent.has(p.pid) && agent.has(p.ppid)) {
        agent.add(p.pid);
        grew = true;
      }
    }
  }
  return [...agent];
}

function environOf(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/environ`, 'utf8');
  } catch {
    return '';
  }
}
