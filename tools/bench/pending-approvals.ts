/**
 * `npm run bench -- --pending N`: N calls paused on an approval, held by the worker in the
 * API process (eager start), then the process's RSS, and how long an approver's decision on a few
 * of them, picked at random, takes to reach the runner waiting on it.
 */
import { readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { figures, show } from './figures.js';
import { heapKinds, printHeapGrowth, snapshotHeap } from './heap-snapshot.js';
import { approvalBody, type BenchRun, type GateCalls } from './gate-calls.js';

const atOnce = 30;
const mib = (bytes: number) => `${(bytes / 2 ** 20).toFixed(0)} MiB`;

/** A process's resident set, from Linux's /proc; undefined elsewhere. */
function rssOf(pid: number): number | undefined {
  try {
    const kib = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return kib === undefined ? undefined : Number(kib) * 1024;
  } catch {
    return undefined;
  }
}

export async function benchPendingApprovals(
  calls: GateCalls,
  count: number,
  workerPid?: number,
  heapDir?: string,
): Promise<void> {
  process.stdout.write(`\n${count} pending approvals held by the API's worker:\n`);
  const heapBefore = heapDir === undefined ? undefined : snapshotHeap(heapDir, 'before');
  const rssBefore = process.memoryUsage().rss;
  const runs = await Promise.all(Array.from({ length: atOnce }, () => calls.newRun()));
  const pending: { run: BenchRun; id: string }[] = [];
  const started = performance.now();
  let next = 0;
  await Promise.all(
    runs.map(async (run) => {
      while (next < count) {
        next += 1;
        const { id, status } = await calls.submit(run, approvalBody);
        if (status !== 'pending_approval') throw new Error(`expected pending, got ${status}`);
        pending.push({ run, id });
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  process.stdout.write(`  opened in ${seconds.toFixed(0)} s (${(count / seconds).toFixed(0)}/s)\n`);
  global.gc?.();
  const memory = process.memoryUsage();
  process.stdout.write(
    `  RSS of the API process: ${mib(memory.rss)} (${mib(rssBefore)} before); ` +
      `JavaScript heap ${mib(memory.heapUsed)} of ${mib(memory.heapTotal)}, ` +
      `outside it ${mib(memory.external)}\n`,
  );
  // After the process's memory is read: writing a snapshot takes memory of its own.
  const heapAfter = heapDir === undefined ? undefined : snapshotHeap(heapDir, 'after');
  const workerRss = workerPid === undefined ? undefined : rssOf(workerPid);
  if (workerRss !== undefined)
    process.stdout.write(
      `  RSS of the worker process (the calls' workflows when eager start is off): ${mib(workerRss)}\n`,
    );
  const samples: number[] = [];
  for (let i = 0; i < 20; i += 1) {
    const picked = pending[Math.floor(Math.random() * pending.length)];
    if (!picked || samples.length >= pending.length) break;
    pending.splice(pending.indexOf(picked), 1);
    const waiting = calls.waitFor(picked.run, picked.id);
    await sleep(30); // the runner's wait is under way before the decision
    const t = performance.now();
    await calls.approve(picked.run, picked.id);
    await waiting;
    samples.push(performance.now() - t);
  }
  show('approver decides -> waiting runner', figures(samples));
  if (heapDir !== undefined && heapBefore !== undefined)
    printHeapGrowth(heapKinds(heapBefore), heapKinds(heapAfter ?? heapBefore), count);
}
