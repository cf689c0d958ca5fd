/**
 * Simulations evaluate off the API's event loop: each in a worker thread of its own, at the
 * lowest priority, its heap bounded, stopped at once when its deadline passes, a few at a time.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { BuildOptions, BuildResult } from 'esbuild';
import type { PolicyBody } from '../domain/policy/policy.js';
import type { RecordedCall, SimulatedRun, SimulatedVerdict } from '../domain/policy/simulation.js';
import { UnavailableError, GateError } from '../domain/errors.js';

export type ThreadMessage =
  | { kind: 'run'; run_id: string; run: SimulatedRun }
  | { kind: 'call'; id: number; call: RecordedCall };
export type ThreadAnswer =
  { id: number; verdict: SimulatedVerdict } | { id: number; error: string };

/** A verdict that will not come: the thread was stopped (its deadline) or failed. */
export class ThreadStoppedError extends GateError {
  override name = 'ThreadStoppedError';
  readonly code = 'simulation_stopped';
}

/** The heap a simulation thread may use: a candidate and the calls in flight, with room. */
const heapMb = 256;

/** Where a thread run from source finds its code, bundled: packages resolve from there. */
const sourceBundles = new URL('../../node_modules/.cache/fluidbox-gate/', import.meta.url);
let sourceBundle: URL | undefined;

/**
 * Run from source (`npm run api`, the tests), the thread's TypeScript bundled once per process
 * by esbuild (the compiler tsx runs on, there wherever tsx is), its packages left to Node, into
 * one module named by its content. A thread that registered tsx itself started a loader thread
 * of its own and resolved every module through it: seconds of CPU for each simulation.
 */
function bundledFromSource(): URL {
  if (sourceBundle) return sourceBundle;
  const { buildSync } = createRequire(import.meta.url)('esbuild') as {
    buildSync: (options: BuildOptions & { write: false }) => BuildResult<{ write: false }>;
  };
  const [output] = buildSync({
    entryPoints: [fileURLToPath(new URL('./simulation-thread-main.ts', import.meta.url))],
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    packages: 'external',
    write: false,
  }).outputFiles;
  if (!output) throw new Error('esbuild wrote no simulation thread');
  const digest = createHash('sha256').update(output.contents).digest('hex').slice(0, 16);
  const bundle = new URL(`simulation-thread-${digest}.mjs`, sourceBundles);
  if (!existsSync(bundle)) {
    // Written whole, then renamed: processes running at once never read half of it.
    mkdirSync(sourceBundles, { recursive: true });
    const partial = fileURLToPath(bundle) + `.${process.pid}.partial`;
    writeFileSync(partial, output.contents);
    renameSync(partial, bundle);
  }
  sourceBundle = bundle;
  return bundle;
}

/** The thread's code: compiled JavaScript beside this file, else bundled from its source. */
function threadEntry(): URL {
  const compiled = new URL('./simulation-thread-main.js', import.meta.url);
  return existsSync(fileURLToPath(compiled)) ? compiled : bundledFromSource();
}

/** One candidate's evaluator: a thread that answers one verdict per call sent. */
export class CandidateThread {
  private readonly worker: Worker;
  private readonly waiting = new Map<
    number,
    { resolve: (verdict: SimulatedVerdict) => void; reject: (err: Error) => void }
  >();
  private readonly sentRuns = new Set<string>();
  private next = 0;
  private stopped: Error | undefined;

  constructor(candidate: PolicyBody) {
    this.worker = new Worker(threadEntry(), {
      workerData: candidate,
      resourceLimits: { maxOldGenerationSizeMb: heapMb },
      stdout: false,
      stderr: false,
    });
    this.worker.on('message', (answer: ThreadAnswer) => {
      const waiter = this.waiting.get(answer.id);
      if (!waiter) return;
      this.waiting.delete(answer.id);
      if ('verdict' in answer) waiter.resolve(answer.verdict);
      else waiter.reject(new Error(`the candidate could not be evaluated: ${answer.error}`));
    });
    this.worker.on('error', (err) => {
      this.fail(new ThreadStoppedError(`the simulation thread failed: ${err.message}`));
    });
    this.worker.on('exit', () => {
      this.fail(new ThreadStoppedError('the simulation thread stopped'));
    });
  }

  /** The candidate's verdict on one call of `run`. */
  verdict(call: RecordedCall, run: SimulatedRun): Promise<SimulatedVerdict> {
    if (this.stopped) return Promise.reject(this.stopped);
    if (!this.sentRuns.has(call.run_id)) {
      this.sentRuns.add(call.run_id);
      this.worker.postMessage({ kind: 'run', run_id: call.run_id, run } satisfies ThreadMessage);
    }
    const id = this.next++;
    return new Promise((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      this.worker.postMessage({ kind: 'call', id, call } satisfies ThreadMessage);
    });
  }

  /** Stops the thread wherever its evaluation is: the verdicts not yet given never come. */
  async stop(): Promise<void> {
    this.fail(new ThreadStoppedError('the simulation was stopped'));
    await this.worker.terminate();
  }

  private fail(err: Error): void {
    this.stopped ??= err;
    for (const waiter of this.waiting.values()) waiter.reject(this.stopped);
    this.waiting.clear();
  }
}

/** How many simulations a process evaluates at once; more are refused until one ends. */
export class SimulationThreads {
  private running = 0;

  constructor(private readonly atOnce: number) {}

  /** `work` with a thread for `candidate`, stopped after it; a 503 while `atOnce` are running. */
  async with<T>(candidate: PolicyBody, work: (thread: CandidateThread) => Promise<T>): Promise<T> {
    if (this.running >= this.atOnce) {
      throw new UnavailableError(
        `${this.atOnce} simulations are running in this API process; try again when one has answered`,
      );
    }
    this.running += 1;
    const thread = new CandidateThread(candidate);
    try {
      return await work(thread);
    } finally {
      this.running -= 1;
      await thread.stop();
    }
  }
}
