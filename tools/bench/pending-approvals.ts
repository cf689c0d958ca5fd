/**
 * `npm run bench -- --pending N`: N calls paused on an approval, held by the API as a process of
 * its own (its hosted worker starts them eagerly) beside the worker process; the RSS of both, as
 * the calls open and once they are held, against the ceiling; then how long an approver's
 * decision on a few of them, picked at random, takes to reach the runner waiting on it.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { GateConfig } from '../../src/config.js';
import type { ManagedProcess } from '../devstack/child-process.js';
import { waitHttpOk, type Stack } from '../devstack/stack.js';
import { startApiProcess } from './cpu-per-call.js';
import { figures, show } from './figures.js';
import { heapKinds, printHeapGrowth } from './heap-snapshot.js';
import { allowBody, approvalBody, gateCalls, newRuns, type BenchRun } from './gate-calls.js';
import { apiHeap, heapOnSignal, mib, rssOf, snapshotApiHeap } from './process-memory.js';

const atOnce = 30;
/** The most both processes together may grow by for 10,000 paused calls. */
const ceiling = 300 * 2 ** 20;
/** How long the calls are held, untouched, before the processes are read again. */
const heldMs = 30_000;

export async function benchPendingApprovals(
  stack: Stack,
  config: GateConfig,
  worker: { process: ManagedProcess },
  count: number,
  heapDir?: string,
): Promise<void> {
  const lines: string[] = [];
  const api = startApiProcess(heapOnSignal(stack, heapDir), undefined, lines);
  try {
    const base = `http://${config.api.host}:${config.api.port}`;
    const key = config.api.operatorKey ?? '';
    await waitHttpOk(`${base}/readyz`);
    const calls = await gateCalls(base, key);
    const runs = await newRuns(calls, atOnce);
    // Warm: the hosted worker runs and each runner's path has been taken once.
    await Promise.all(runs.map((run) => calls.submit(run, allowBody)));
    const pids = { api: api.child.pid, worker: worker.process.child.pid };
    const read = () => ({ api: rssOf(pids.api), worker: rssOf(pids.worker) });
    const before = read();
    const heapBefore = heapDir && (await snapshotApiHeap(api, heapDir));
    process.stdout.write(
      `\n${count} pending approvals, the API (its hosted worker within) and the worker process each a process of its own:\n`,
    );
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
    process.stdout.write(
      `  opened in ${seconds.toFixed(0)} s (${(count / seconds).toFixed(0)}/s)\n`,
    );
    const opened = read();
    const heapOpened = await apiHeap(base, key);
    await sleep(heldMs);
    const held = read();
    const heapHeld = await apiHeap(base, key);
    const row = (label: string, at: { api: number; worker: number }) =>
      process.stdout.write(
        `  ${label.padEnd(34)} ${mib(at.api).padStart(9)} ${mib(at.worker).padStart(9)} ${mib(at.api + at.worker).padStart(9)}\n`,
      );
    process.stdout.write(`  RSS                                      API    worker  together\n`);
    row('before (warm)', before);
    row('all opened', opened);
    row(`held ${heldMs / 1000} s untouched`, held);
    const grown = (at: { api: number; worker: number }) => ({
      api: at.api - before.api,
      worker: at.worker - before.worker,
    });
    row('grown, held', grown(held));
    process.stdout.write(
      `  API's JavaScript heap (main thread), used of total: opened ${mib(heapOpened.used)} of ${mib(heapOpened.total)}, held ${mib(heapHeld.used)} of ${mib(heapHeld.total)}\n`,
    );
    const growth = grown(held).api + grown(held).worker;
    const perCall = `${(growth / count / 1024).toFixed(1)} KiB a call`;
    process.stdout.write(
      count >= 10_000
        ? `  ${growth <= ceiling ? '✔' : '✖'} together grown by ${mib(growth)} held, ${perCall} (at most ${mib(ceiling)} for 10,000)\n`
        : `  together grown by ${mib(growth)} held, ${perCall} (the ceiling, ${mib(ceiling)}, is for 10,000)\n`,
    );
    const heapAfter = heapDir && (await snapshotApiHeap(api, heapDir));
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
    if (heapBefore && heapAfter)
      printHeapGrowth(heapKinds(heapBefore), heapKinds(heapAfter), count);
  } catch (err) {
    process.stderr.write(`the API's last words:\n${lines.slice(-20).join('\n')}\n`);
    throw err;
  } finally {
    await api.stop();
  }
}
