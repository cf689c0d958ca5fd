import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { afterEach, test } from 'vitest';
import { byThreadKind, measuredNodeFlags } from '../../tools/bench/cpu-per-call.js';
import { parseCountsLine } from '../../tools/bench/pg-query-counts.js';
import {
  clusterCpuSeconds,
  cpuSeconds,
  procStat,
  threadCpuSeconds,
} from '../../tools/bench/process-cpu.js';
import { projectRoot } from '../../tools/devstack/stack-config.js';

const started: ChildProcess[] = [];
afterEach(() => {
  for (const child of started.splice(0)) child.kill('SIGKILL');
});

/** A process of this test's, and the lines it prints, each awaited by its text. */
function start(command: string, args: string[]) {
  const child = spawn(command, args, { cwd: projectRoot, stdio: ['ignore', 'pipe', 'inherit'] });
  started.push(child);
  const lines: string[] = [];
  const waiting: { match: (line: string) => boolean; resolve: (line: string) => void }[] = [];
  createInterface({ input: child.stdout }).on('line', (line) => {
    lines.push(line);
    for (const w of waiting.filter((w) => w.match(line))) w.resolve(line);
  });
  const line = (match: (line: string) => boolean) =>
    new Promise<string>((resolve) => {
      const seen = lines.find(match);
      if (seen !== undefined) resolve(seen);
      else waiting.push({ match, resolve });
    });
  return { child, pid: child.pid ?? 0, line };
}

/** Burns this much CPU (not wall time: the machine may be loaded), in a thread of its own. */
const burnInThread = (ms: number) =>
  `const { Worker } = require('node:worker_threads');
   new Worker("while (process.cpuUsage().user < ${ms * 1000});", { eval: true })
     .on('exit', () => { console.log('done'); setInterval(() => {}, 1000); });`;

test('a process is charged the CPU that any of its threads spent', async () => {
  const burner = start(process.execPath, ['-e', burnInThread(400)]);
  await burner.line((l) => l === 'done');
  assert.ok(cpuSeconds(burner.pid) >= 0.39, `charged ${cpuSeconds(burner.pid)} s`);
});

test("a measured process's CPU by thread: its worker thread named, a thread that ended counted apart", async () => {
  // One worker thread burns and stays; another burns and ends, as a sandbox's watchdog does.
  const measured = start(process.execPath, [
    ...measuredNodeFlags(undefined),
    '--input-type=module',
    '-e',
    `import { Worker } from 'node:worker_threads';
     // Each burns its own thread's time (schedstat: ns on a CPU), whatever the others spend.
     const burn = (ms, stay) => new Worker(
       'const { readFileSync } = await import("node:fs");' +
       'const own = () => Number(readFileSync("/proc/thread-self/schedstat", "utf8").split(" ")[0]) / 1e6;' +
       'const end = own() + ' + ms + '; while (own() < end);' +
         (stay ? '(await import("node:worker_threads")).parentPort.postMessage(1); setInterval(() => {}, 1000);' : ''),
       { eval: true });
     const stays = burn(400, true);
     await new Promise((resolve) => stays.once('message', resolve));
     await new Promise((resolve) => burn(300, false).once('exit', resolve));
     console.log('done'); setInterval(() => {}, 1000);`,
  ]);
  await measured.line((l) => l === 'done');
  const threads = threadCpuSeconds(measured.pid);
  const kinds = byThreadKind(measured.pid, new Map(), threads, cpuSeconds(measured.pid));
  const seen = JSON.stringify(kinds);
  assert.ok(kinds.worker >= 0.3, `the living worker thread: ${seen}`);
  assert.ok(kinds.ended >= 0.2, `the thread that ended: ${seen}`);
  assert.ok(kinds.main < 0.2, `the main thread burned little: ${seen}`);
});

test('a cluster is charged the CPU of the children it started that have exited', async () => {
  const parent = start(process.execPath, [
    '-e',
    `require('node:child_process').spawnSync(process.execPath, ['-e', 'while (process.cpuUsage().user < 400000);']);
     console.log('done'); setInterval(() => {}, 1000);`,
  ]);
  await parent.line((l) => l === 'done');
  assert.ok(cpuSeconds(parent.pid) < 0.3, 'the parent itself burned little');
  assert.ok(clusterCpuSeconds(parent.pid) >= 0.39, `charged ${clusterCpuSeconds(parent.pid)} s`);
});

test('a process whose name holds spaces and parentheses is read right', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'bench-stat-'));
  try {
    const oddName = path.join(dir, 'a) (b c');
    symlinkSync(process.execPath, oddName);
    const odd = start(oddName, ['-e', "console.log('up'); setInterval(() => {}, 1000);"]);
    await odd.line((l) => l === 'up');
    assert.equal(procStat(odd.pid)?.ppid, process.pid);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a measured process counts its pg queries, each awaited or pipelined, and prints them when asked', async () => {
  // Queries on clients never connected wait in their queues: sent or not, each is counted.
  const measured = start(process.execPath, [
    ...measuredNodeFlags(undefined),
    '--input-type=module',
    '-e',
    `import pg from 'pg';
     for (let i = 0; i < 3; i += 1) void new pg.Client().query('select 1').catch(() => {});
     void new pg.Client({ pipeline: true }).query('select 1').catch(() => {});
     console.log('queried'); setInterval(() => {}, 1000);`,
  ]);
  await measured.line((l) => l === 'queried');
  measured.child.kill('SIGWINCH');
  const counts = parseCountsLine(await measured.line((l) => parseCountsLine(l) !== undefined));
  assert.deepEqual(counts, { waited: 3, pipelined: 1 });
});
