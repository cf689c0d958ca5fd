/**
 * How far a process lets its JavaScript heap grow between full collections. V8 sizes the next
 * collection by how fast the process allocates: an API that keeps answering is never idle enough
 * for its memory reducer, so after a burst (10,000 calls paused on a person) it carries hundreds
 * of MiB of garbage it will not collect for minutes, and its memory is that garbage's sawtooth
 * under a steady load (docs/performance.md). A fixed growth factor collects once the heap has
 * grown by `percent` past what was live at the last full collection, whatever the pace: the
 * heap stays near what the process keeps, with no ceiling on what a legitimate peak may need
 * (a heap limit would fail the process there). Process-wide: the workflow thread's heap too.
 */
import { setFlagsFromString } from 'node:v8';

/** Sets the growth factor for this process's heaps; 0 leaves V8's own sizing. */
export function boundHeapGrowth(percent: number): void {
  if (percent > 0) setFlagsFromString(`--heap-growing-percent=${String(percent)}`);
}
