/** Percentiles of latency samples and the bench's printing of them. */

export interface Figures {
  p50: number;
  p95: number;
  p99: number;
  mean: number;
}

export function figures(samples: readonly number[]): Figures {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q: number) =>
    sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN;
  return {
    p50: at(0.5),
    p95: at(0.95),
    p99: at(0.99),
    mean: sorted.reduce((a, b) => a + b, 0) / sorted.length,
  };
}

export const ms = (n: number) => `${n.toFixed(1)} ms`;

export function show(label: string, f: Figures): void {
  process.stdout.write(
    `  ${label.padEnd(46)} p50 ${ms(f.p50).padStart(9)}  p95 ${ms(f.p95).padStart(9)}  p99 ${ms(f.p99).padStart(9)}\n`,
  );
}

/** Runs `loops` loops at once, each timing `count` calls; returns the samples and the time taken. */
export async function concurrently(
  loops: number,
  count: number,
  prepare: (loop: number) => Promise<() => Promise<unknown>>,
): Promise<{ samples: number[]; ms: number }> {
  const calls = await Promise.all(Array.from({ length: loops }, (_, i) => prepare(i)));
  const samples: number[] = [];
  const started = performance.now();
  await Promise.all(
    calls.map(async (call) => {
      for (let i = 0; i < count; i += 1) {
        const t = performance.now();
        await call();
        samples.push(performance.now() - t);
      }
    }),
  );
  return { samples, ms: performance.now() - started };
}

/** Times one call. */
export async function timed(call: () => Promise<unknown>): Promise<number> {
  const t = performance.now();
  await call();
  return performance.now() - t;
}
