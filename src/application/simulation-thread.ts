/**
 * Simulations evaluate off the API's event loop: each in a worker thread, at the lowest
 * priority, its heap bounded, stopped at once when its deadline passes, a few at a time. A
 * thread whose simulation ended on its own is kept for the next one for a while (starting one
 * costs more than most simulations), and holds nothing of the simulation before.
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
  | { kind: 'begin'; candidate: PolicyBody }
  | { kind: 'end' }
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

/** A simulation's evaluator: a thread answering one verdict a call, one candidate at a time. */
export class CandidateThread {
  private readonly worker: Worker;
  private readonly waiting = new Map<
    number,
    { resolve: (verdict: SimulatedVerdict) => void; reject: (err: Error) => void }
  >();
  private readonly sentRuns = new Set<string>();
  /** Never reused, across candidates too: an answer meant for one simulation reaches no other. */
  private next = 0;
  private stopped: Error | undefined;

  constructor() {
    this.worker = new Worker(threadEntry(), {
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

  /** Whether the thread can take a simulation: it has not stopped and has nothing in flight. */
  get idle(): boolean {
    return this.stopped === undefined && this.waiting.size === 0;
  }

  /** Starts evaluating `candidate`, the thread keeping its process alive meanwhile. */
  begin(candidate: PolicyBody): void {
    this.sentRuns.clear();
    this.worker.ref();
    this.worker.postMessage({ kind: 'begin', candidate } satisfies ThreadMessage);
  }

  /** Ends the simulation: the thread forgets its candidate and runs, and lets the process exit. */
  end(): void {
    this.sentRuns.clear();
    this.worker.postMessage({ kind: 'end' } satisfies ThreadMessage);
    this.worker.unref();
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

/**
 * How many simulations a process evaluates at once; more are refused until one ends. A thread
 * whose simulation ended with nothing in flight waits `keptMs` for the next (at most `atOnce` of
 * them wait); one stopped by its deadline or its heap, or that failed, is never used again.
 */
export class SimulationThreads {
  private running = 0;
  private readonly kept: { thread: CandidateThread; timer: NodeJS.Timeout }[] = [];
  private closed = false;

  constructor(
    private readonly atOnce: number,
    private readonly keptMs = 60_000,
  ) {}

  /** `work` with a thread evaluating `candidate`; a 503 while `atOnce` are running. */
  async with<T>(candidate: PolicyBody, work: (thread: CandidateThread) => Promise<T>): Promise<T> {
    if (!this.open()) throw new UnavailableError('this API process is stopping');
    if (this.running >= this.atOnce) {
      throw new UnavailableError(
        `${this.atOnce} simulations are running in this API process; try again when one has answered`,
      );
    }
    this.running += 1;
    const thread = this.take() ?? new CandidateThread();
    try {
      thread.begin(candidate);
      return await work(thread);
    } finally {
      this.running -= 1;
      if (thread.idle && this.open()) this.keep(thread);
      else await thread.stop();
    }
  }

  /** Stops the threads kept for later simulations. */
  async close(): Promise<void> {
    this.closed = true;
    await Promise.all(
      this.kept.splice(0).map(({ thread, timer }) => {
        clearTimeout(timer);
        return thread.stop();
      }),
    );
  }

  /** How many threads wait for a simulation, for tests. */
  get waiting(): number {
    return this.kept.length;
  }

  /** Read as a call: `close` may have run while a simulation awaited. */
  private open(): boolean {
    return !this.closed;
  }

  private take(): CandidateThread | undefined {
    for (let entry = this.kept.pop(); entry; entry = this.kept.pop()) {
      clearTimeout(entry.timer);
      if (entry.thread.idle) return entry.thread;
      void entry.thread.stop();
    }
    return undefined;
  }

  private keep(thread: CandidateThread): void {
    thread.end();
    const entry = {
      thread,
      timer: setTimeout(() => {
        const at = this.kept.indexOf(entry);
        if (at >= 0) this.kept.splice(at, 1);
        void thread.stop();
      }, this.keptMs).unref(),
    };
    this.kept.push(entry);
  }
}
