/**
 * What a process of the bench holds in memory, read from outside it: its resident set from
 * Linux's /proc, the API's JavaScript heap from its own Prometheus metrics, and a heap snapshot
 * of the API written on a signal (`--heapsnapshot-signal`), so that the process measured is the
 * API as deployed, with nothing of the bench's inside it.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { ManagedProcess } from '../devstack/child-process.js';
import type { Stack } from '../devstack/stack.js';

export const mib = (bytes: number) => `${(bytes / 2 ** 20).toFixed(0)} MiB`;

/** A process's resident set, from Linux's /proc; 0 elsewhere or once it has exited. */
export function rssOf(pid: number | undefined): number {
  if (pid === undefined) return 0;
  try {
    const kib = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return kib === undefined ? 0 : Number(kib) * 1024;
  } catch {
    return 0;
  }
}

export interface ApiHeap {
  used: number;
  total: number;
}

/** The API's JavaScript heap (main thread), as its `/metrics` reports it. */
export async function apiHeap(base: string, operatorKey: string): Promise<ApiHeap> {
  const response = await fetch(`${base}/metrics`, {
    headers: { authorization: `Bearer ${operatorKey}` },
  });
  const text = await response.text();
  const read = (name: string) =>
    Number(new RegExp(`^gate_${name} (\\S+)$`, 'm').exec(text)?.[1] ?? NaN);
  return { used: read('nodejs_heap_size_used_bytes'), total: read('nodejs_heap_size_total_bytes') };
}

/**
 * The stack's environment for an API whose heap is written into `dir` on SIGTTIN (not SIGUSR2,
 * on which the Temporal SDK stops the process's workers).
 */
export function heapOnSignal(stack: Stack, dir: string | undefined): Stack {
  if (dir === undefined) return stack;
  const options = `--heapsnapshot-signal=SIGTTIN --diagnostic-dir=${dir}`;
  const inherited = stack.env.NODE_OPTIONS ?? '';
  return { ...stack, env: { ...stack.env, NODE_OPTIONS: `${inherited} ${options}`.trim() } };
}

/**
 * Has `api` (started with `heapOnSignal`) write a snapshot of its heap into `dir`; returns its
 * file once written (its size no longer changes).
 */
export async function snapshotApiHeap(api: ManagedProcess, dir: string): Promise<string> {
  const before = new Set(readdirSync(dir));
  api.child.kill('SIGTTIN');
  for (let waited = 0; waited < 300_000; waited += 500) {
    await sleep(500);
    const written = readdirSync(dir).find((f) => f.endsWith('.heapsnapshot') && !before.has(f));
    if (written === undefined) continue;
    const file = path.join(dir, written);
    const size = statSync(file).size;
    await sleep(1000);
    if (size > 0 && statSync(file).size === size) return file;
  }
  throw new Error(`the API wrote no heap snapshot into ${dir}`);
}
