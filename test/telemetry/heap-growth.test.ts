/**
 * A process's heap growth bounded (`GATE_HEAP_GROWTH_PERCENT`): a child process keeps a fixed set
 * of objects live and allocates a gigabyte of garbage that outlives a young collection, a fixed
 * number of objects rather than for a time, so V8's pace heuristics have nothing to vary with.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { createRequire } from 'node:module';
import { promisify } from 'node:util';
import { test } from 'vitest';

const tsx = createRequire(import.meta.url).resolve('tsx');
const heapGrowth = new URL('../../src/telemetry/heap-growth.ts', import.meta.url).href;

/** The child's peak heap size, in MiB, with `percent` set (0: V8's own sizing). */
async function peakHeapMb(percent: number): Promise<number> {
  const code = `
    import { getHeapStatistics } from 'node:v8';
    const { boundHeapGrowth } = await import(${JSON.stringify(heapGrowth)});
    boundHeapGrowth(${String(percent)});
    const live = Array.from({ length: 200_000 }, (_, i) => ({ text: 'x'.repeat(40) + i, n: [i] }));
    let kept = [];
    let peak = 0;
    for (let i = 0; i < 3_000_000; i += 1) {
      kept.push({ text: 'y'.repeat(200) + i, n: [i, i, i, i, i, i, i, i] });
      if (kept.length === 50_000) kept = [];
      if (i % 1000 === 0) peak = Math.max(peak, getHeapStatistics().total_heap_size);
    }
    // The live set is read last, so it stays live to the end.
    process.stdout.write(JSON.stringify({ peak: peak / 2 ** 20, kept: live.length }));
  `;
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ['--import', tsx, '--input-type=module', '-e', code],
    { env: { ...process.env, NODE_OPTIONS: '' } },
  );
  return (JSON.parse(stdout) as { peak: number }).peak;
}

test('with the growth bounded, a process churning a gigabyte of garbage keeps its heap near what it holds live', async () => {
  const [bounded, unbounded] = await Promise.all([peakHeapMb(25), peakHeapMb(0)]);
  process.stdout.write(
    `peak heap: ${bounded.toFixed(0)} MiB bounded at 25%, ${unbounded.toFixed(0)} MiB left to V8\n`,
  );
  // Live: the fixed set (~40 MiB), up to 50,000 objects of garbage not yet dropped (~25 MiB) and
  // the young generation; V8's own sizing lets the same run reach several times that.
  assert.ok(bounded < 200, `the bounded heap peaked at ${bounded.toFixed(0)} MiB`);
});
