/**
 * `npm run bench -- --soak [seconds]`: 30 runners send allowed calls without pause, for 600 s
 * unless told, to the API as a process of its own (its hosted worker within) beside the worker
 * process. Every 30 s: the calls decided, the API's RSS and JavaScript heap, the worker's RSS;
 * then the verdict, whether the API's RSS stayed within 30 MiB from the second minute on. With
 * `--heap`, snapshots of the API's heap at the second minute and at the end, and what grew.
 */
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { GateConfig } from '../../src/config.js';
import type { ManagedProcess } from '../devstack/child-process.js';
import { waitHttpOk, type Stack } from '../devstack/stack.js';
import { startApiProcess } from './cpu-per-call.js';
import { heapKinds, printHeapGrowth } from './heap-snapshot.js';
import {
  allowBody,
  BenchCallError,
  gateCalls,
  newRuns,
  type BenchRun,
  type GateCalls,
} from './gate-calls.js';
import { apiHeap, heapOnSignal, mib, rssOf, snapshotApiHeap } from './process-memory.js';

const runners = 30;
const sampleMs = 30_000;
/** From when the API's memory must stay flat: the first minute warms caches, pools and code. */
const settledMs = 60_000;
/** How far the API's RSS may move from the second minute on and still be flat. */
const flatWithin = 30 * 2 ** 20;

interface Sample {
  s: number;
  calls: number;
  api: number;
  heapUsed: number;
  heapTotal: number;
  worker: number;
}

/** One runner: allowed calls, one after another, a 503 sent again under its id, until `stop`. */
async function runner(
  calls: GateCalls,
  run: BenchRun,
  counts: { done: number },
  stop: AbortSignal,
) {
  while (!stop.aborted) {
    const id = randomUUID();
    for (;;) {
      try {
        await calls.submit(run, allowBody, id);
        counts.done += 1;
        break;
      } catch (err) {
        if (!(err instanceof BenchCallError && err.status === 503)) throw err;
      }
    }
  }
}

export async function benchSoak(
  stack: Stack,
  config: GateConfig,
  worker: { process: ManagedProcess },
  seconds: number,
  heapDir?: string,
): Promise<void> {
  const lines: string[] = [];
  const api = startApiProcess(heapOnSignal(stack, heapDir), undefined, lines);
  const stop = new AbortController();
  try {
    const base = `http://${config.api.host}:${config.api.port}`;
    const key = config.api.operatorKey ?? '';
    await waitHttpOk(`${base}/readyz`);
    const calls = await gateCalls(base, key);
    const runs = await newRuns(calls, runners);
    process.stdout.write(
      `\nSoak: ${runners} runners sending allowed calls for ${seconds} s, the API a process of its own:\n` +
        `     s    calls     /s    API RSS   API heap used / total   worker RSS\n`,
    );
    const counts = { done: 0 };
    const started = performance.now();
    const running = runs.map((run) => runner(calls, run, counts, stop.signal));
    // The first runner to fail ends the soak; the others are awaited once it stops.
    for (const r of running) r.catch(() => undefined);
    const failed = Promise.race(running).then(() => undefined);
    const samples: Sample[] = [];
    let heapBefore: { file: string; calls: number } | undefined;
    for (let at = sampleMs; at <= seconds * 1000; at += sampleMs) {
      await Promise.race([sleep(started + at - performance.now()), failed]);
      const heap = await apiHeap(base, key);
      const sample: Sample = {
        s: Math.round((performance.now() - started) / 1000),
        calls: counts.done,
        api: rssOf(api.child.pid),
        heapUsed: heap.used,
        heapTotal: heap.total,
        worker: rssOf(worker.process.child.pid),
      };
      const previous = samples.at(-1) ?? { s: 0, calls: 0 };
      samples.push(sample);
      process.stdout.write(
        `  ${String(sample.s).padStart(4)} ${String(sample.calls).padStart(8)} ${((sample.calls - previous.calls) / (sample.s - previous.s)).toFixed(0).padStart(6)} ${mib(sample.api).padStart(10)} ${mib(sample.heapUsed).padStart(11)} / ${mib(sample.heapTotal).padEnd(9)} ${mib(sample.worker).padStart(11)}\n`,
      );
      if (heapDir && at === settledMs)
        heapBefore = { file: await snapshotApiHeap(api, heapDir), calls: counts.done };
    }
    const heapAfter = heapDir && { file: await snapshotApiHeap(api, heapDir), calls: counts.done };
    stop.abort();
    await Promise.all(running);
    printVerdict(samples);
    if (heapBefore && heapAfter)
      printHeapGrowth(
        heapKinds(heapBefore.file),
        heapKinds(heapAfter.file),
        heapAfter.calls - heapBefore.calls,
      );
  } catch (err) {
    process.stderr.write(`the API's last words:\n${lines.slice(-20).join('\n')}\n`);
    throw err;
  } finally {
    stop.abort();
    await api.stop();
  }
}

function printVerdict(samples: Sample[]): void {
  const settled = samples.filter((s) => s.s * 1000 >= settledMs);
  const first = settled[0];
  const last = settled.at(-1);
  if (!first || !last) {
    process.stdout.write(
      '  too short for a verdict: the API is flat or not from the second minute\n',
    );
    return;
  }
  const rss = settled.map((s) => s.api);
  const range = Math.max(...rss) - Math.min(...rss);
  process.stdout.write(
    `  ${range <= flatWithin ? '✔ flat' : '✖ not flat'}: from the second minute to the last, the API's RSS moved within ${mib(range)} (at most ${mib(flatWithin)}), ${mib(first.api)} → ${mib(last.api)}; its heap used ${mib(first.heapUsed)} → ${mib(last.heapUsed)}\n` +
      `  trend over those samples (least squares): RSS ${perMinute(settled, (s) => s.api)}, heap total ${perMinute(settled, (s) => s.heapTotal)}\n`,
  );
}

/** The slope of a least-squares line through the samples, in MiB a minute. */
function perMinute(samples: Sample[], value: (s: Sample) => number): string {
  const n = samples.length;
  const meanS = samples.reduce((sum, s) => sum + s.s, 0) / n;
  const meanV = samples.reduce((sum, s) => sum + value(s), 0) / n;
  const covariance = samples.reduce((sum, s) => sum + (s.s - meanS) * (value(s) - meanV), 0);
  const variance = samples.reduce((sum, s) => sum + (s.s - meanS) ** 2, 0);
  const slope = variance === 0 ? 0 : (covariance / variance) * 60;
  return `${slope >= 0 ? '+' : ''}${(slope / 2 ** 20).toFixed(1)} MiB a minute`;
}
