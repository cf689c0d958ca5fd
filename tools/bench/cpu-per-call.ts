/**
 * What an allowed decision costs each process, beside what an empty update-with-start workflow
 * costs: the API and the worker each run as a process of their own, the floor's client and
 * worker in one process of theirs, and each process's CPU time (/proc, every thread) is read
 * before and after each round of calls at many runners at once, the floor's and the gate's in
 * turn. During the gate's rounds PostgreSQL counts its statements (pg_stat_statements) and the
 * API's and worker's pg clients count their round trips (pg-round-trips.ts, loaded into them).
 */
import { fork } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import pg from 'pg';
import type { GateConfig } from '../../src/config.js';
import { startProcess, waitFor, type ManagedProcess } from '../devstack/child-process.js';
import { clusterDataDir } from '../devstack/postgres-cluster.js';
import { projectRoot } from '../devstack/stack-config.js';
import { waitHttpOk, type Stack } from '../devstack/stack.js';
import { nowUs, type Window } from './cpu-profile.js';
import type { FloorRound } from './floor-process.js';
import {
  allowBody,
  BenchCallError,
  gateCalls,
  type BenchRun,
  type GateCalls,
} from './gate-calls.js';
import { parseCountsLine, type PgQueryCounts } from './pg-query-counts.js';
import {
  countingNotices,
  countingStatements,
  shortText,
  statementsSinceReset,
} from './pg-statements.js';
import { clusterCpuSeconds, cpuSeconds, postmasterPid, threadCpuSeconds } from './process-cpu.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const tsx = createRequire(import.meta.url).resolve('tsx');

/** What the bench's cluster loads so that it counts every statement it runs. */
export const statementCounting = { shared_preload_libraries: 'pg_stat_statements' };

/** What a measured process's worker threads call themselves (15 characters at most). */
const workerThreadName = 'node-worker';

/**
 * Loaded into each thread of a measured process that runs JavaScript: a worker thread (the
 * workflows') names itself, so that /proc tells it from V8's and libuv's threads, which Node 20
 * leaves unnamed like its own.
 */
const threadNaming = `import { writeFileSync } from 'node:fs';
import { isMainThread } from 'node:worker_threads';
if (!isMainThread) writeFileSync('/proc/thread-self/comm', ${JSON.stringify(workerThreadName)});`;

/**
 * The counter of round trips, loaded in the main thread only: a worker thread (the workflows')
 * starts with the same options, and has neither pg nor TypeScript's loader.
 */
const roundTripCounter = `import { isMainThread } from 'node:worker_threads';
if (isMainThread) await import(${JSON.stringify(pathToFileURL(path.join(here, 'pg-round-trips.ts')).href)});`;

const dataModule = (code: string) => `data:text/javascript,${encodeURIComponent(code)}`;

/** The Node options of a measured process: pg's round trips counted, and its CPU profiled. */
export function measuredNodeFlags(profileDir: string | undefined): string[] {
  return [
    '--import',
    tsx,
    '--import',
    dataModule(threadNaming),
    '--import',
    dataModule(roundTripCounter),
    ...(profileDir ? ['--cpu-prof', '--cpu-prof-dir', profileDir] : []),
  ];
}

export interface CpuSizes {
  runners: number;
  callsPerRunner: number;
  rounds: number;
}

/** What the profiles are read for afterwards: which process is which, and when the load ran. */
export interface CpuRun {
  processes: Map<number, string>;
  windows: Window[];
}

interface Kind {
  seconds: Record<string, number>;
  /** The API's or the floor's process, by kind of thread (`threadKinds`). */
  threads: Record<string, number>;
  calls: number;
  ms: number;
}

/** The threads of a measured Node process that runs Temporal's SDK, told apart by their names. */
const threadKinds = {
  main: 'main thread',
  worker: 'worker threads (the workflow thread)',
  node: "V8's and libuv's threads (GC helpers among them)",
  core: "the SDK's core (its Rust threads)",
  ended: 'threads that ended during the rounds (sandbox watchdogs)',
} as const;

/** Thread names of the SDK's core: its tokio runtime, its workflow processing, its sysinfo. */
const coreThreadNames = /^(tokio-runtime-w|workflow-proces|temporal-real-s)/;

type ThreadSnapshot = ReturnType<typeof threadCpuSeconds>;

/**
 * A process's CPU seconds between two readings, by kind of thread. A thread that ended in
 * between is in the process's time only: what no running thread holds is counted as ended
 * (each entry into the workflow sandbox starts a watchdog thread that ends with it).
 */
export function byThreadKind(
  pid: number,
  before: ThreadSnapshot,
  after: ThreadSnapshot,
  processSeconds: number,
): Record<keyof typeof threadKinds, number> {
  const kinds = { main: 0, worker: 0, node: 0, core: 0, ended: processSeconds };
  for (const [tid, { name, seconds }] of after) {
    const spent = seconds - (before.get(tid)?.seconds ?? 0);
    const kind =
      tid === pid
        ? 'main'
        : name === workerThreadName
          ? 'worker'
          : coreThreadNames.test(name)
            ? 'core'
            : 'node';
    kinds[kind] += spent;
    kinds.ended -= spent;
  }
  return kinds;
}

const rows = {
  starter: 'API (its hosted worker within) / floor (client and worker)',
  worker: 'worker process',
  temporal: 'Temporal dev server',
  postgres: 'PostgreSQL (postmaster, backends, the rest)',
  runners: "runners over HTTP (the bench's own process)",
} as const;

/** The pg query counts a measured process prints on SIGWINCH. */
async function queryCounts(process: ManagedProcess, lines: string[]): Promise<PgQueryCounts> {
  const from = lines.length;
  process.child.kill('SIGWINCH');
  return waitFor(
    `${process.name}'s pg query counts`,
    () => {
      const counts = lines.slice(from).map(parseCountsLine).find(Boolean);
      return counts ? Promise.resolve(counts) : Promise.reject(new Error('not yet'));
    },
    { timeoutMs: 10_000, intervalMs: 20 },
  );
}

/** The API as a process of its own, logging what goes wrong, its output into `lines`. */
export function startApiProcess(stack: Stack, profileDir: string | undefined, lines: string[]) {
  const source = path.join(projectRoot, 'src/api/main.ts');
  return startProcess('api', process.execPath, [...measuredNodeFlags(profileDir), source], {
    // The in-process API of the other figures logs nothing; this one logs what goes wrong.
    env: { ...stack.env, LOG_LEVEL: 'warn' },
    cwd: projectRoot,
    quiet: true,
    capture: lines,
  });
}

/** The floor's client and worker in a process of their own, driven round by round. */
async function startFloorProcess(stack: Stack) {
  const child = fork(path.join(here, 'floor-process.ts'), [], {
    env: stack.env,
    execArgv: ['--import', tsx, '--import', dataModule(threadNaming)],
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  const reply = () =>
    new Promise<unknown>((resolve, reject) => {
      child.once('message', resolve);
      child.once('exit', (code) => {
        reject(new Error(`the floor's process exited (${code})`));
      });
    });
  const ready = await reply();
  if (ready !== 'ready') throw new Error(`the floor's process said ${JSON.stringify(ready)}`);
  return {
    pid: child.pid ?? 0,
    round: async (round: FloorRound) => {
      const answer = reply();
      child.send(round);
      const { ms, error } = (await answer) as { ms?: number; error?: string };
      if (ms === undefined) throw new Error(`a floor round failed: ${error}`);
      return ms;
    },
    stop: async () => {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.send('stop');
      await exited;
    },
  };
}

/**
 * An allowed call, sent again under the same id while the gate answers 503 (still evaluating
 * it, or Temporal out of reach), as a runner does: a loaded machine answers some that way.
 */
async function submitUntilDecided(calls: GateCalls, run: BenchRun): Promise<void> {
  const id = randomUUID();
  for (let attempt = 1; ; attempt += 1) {
    try {
      await calls.submit(run, allowBody, id);
      return;
    } catch (err) {
      if (!(err instanceof BenchCallError && err.status === 503) || attempt === 5) throw err;
    }
  }
}

const perThousand = (seconds: number, calls: number) => (seconds * 1000) / calls;

/**
 * Measures and prints CPU per 1,000 calls by process, the gate's allow beside the floor, and
 * PostgreSQL's statements and round trips per decision. `worker` is the stack's worker process,
 * started with `measuredNodeFlags` (its output in `workerLines`); nothing else may poll the
 * gate's task queue meanwhile.
 */
export async function benchCpuPerCall(
  stack: Stack,
  config: GateConfig,
  worker: { process: ManagedProcess; lines: string[] },
  sizes: CpuSizes,
  profileDir: string | undefined,
): Promise<CpuRun> {
  const apiLines: string[] = [];
  const api = startApiProcess(stack, profileDir, apiLines);
  const floor = await startFloorProcess(stack);
  const db = new pg.Client({ connectionString: stack.databaseUrl });
  await db.connect();
  const windows: Window[] = [];
  try {
    const base = `http://${config.api.host}:${config.api.port}`;
    await waitHttpOk(`${base}/readyz`);
    const calls = await gateCalls(base, config.api.operatorKey ?? '');
    const notCounted = await countingStatements(db);
    const noticesSoFar = await countingNotices(db);
    const pids = {
      starter: { gate: api.child.pid ?? 0, floor: floor.pid },
      worker: worker.process.child.pid ?? 0,
      temporal: stack.temporal.child.pid ?? 0,
      postgres: postmasterPid(clusterDataDir(stack.profile)),
    };
    const cpu = (kind: 'gate' | 'floor'): Record<string, number> => {
      if (worker.process.child.exitCode !== null)
        throw new Error(`the worker process exited:\n${worker.lines.slice(-20).join('\n')}`);
      return {
        starter: cpuSeconds(pids.starter[kind]),
        worker: cpuSeconds(pids.worker),
        temporal: cpuSeconds(pids.temporal),
        postgres: clusterCpuSeconds(pids.postgres),
        runners: cpuSeconds(process.pid),
      };
    };
    const runs = await Promise.all(Array.from({ length: sizes.runners }, () => calls.newRun()));
    const gateRound = async (perRunner: number) => {
      const started = performance.now();
      await Promise.all(
        runs.map(async (run: BenchRun) => {
          for (let i = 0; i < perRunner; i += 1) await submitUntilDecided(calls, run);
        }),
      );
      return performance.now() - started;
    };
    // The API and the worker bundle the workflow as they start: the first call waits for them.
    const [first] = runs;
    if (first)
      await waitFor('a first decision', () => calls.submit(first, allowBody), {
        timeoutMs: 300_000,
        intervalMs: 1000,
      });
    // Warm before measuring: workflow code, connections, the JIT.
    await floor.round({ runners: sizes.runners, calls: 2 });
    await gateRound(2);

    const totals: Record<'gate' | 'floor', Kind> = {
      gate: { seconds: {}, threads: {}, calls: 0, ms: 0 },
      floor: { seconds: {}, threads: {}, calls: 0, ms: 0 },
    };
    const roundTrips: PgQueryCounts = { waited: 0, pipelined: 0 };
    let notices = 0;
    const byText = new Map<string, number>();
    for (let round = 0; round < sizes.rounds; round += 1) {
      const order = round % 2 === 0 ? (['floor', 'gate'] as const) : (['gate', 'floor'] as const);
      for (const kind of order) {
        // Read outside the statements' count: its marker is a statement too.
        const noticesBefore = kind === 'gate' ? await noticesSoFar() : 0;
        if (kind === 'gate' && notCounted === undefined)
          await db.query('select pg_stat_statements_reset()');
        const queriesBefore =
          kind === 'gate'
            ? [await queryCounts(api, apiLines), await queryCounts(worker.process, worker.lines)]
            : [];
        const threadsBefore = threadCpuSeconds(pids.starter[kind]);
        const before = cpu(kind);
        const fromUs = nowUs();
        const ms =
          kind === 'gate'
            ? await gateRound(sizes.callsPerRunner)
            : await floor.round({ runners: sizes.runners, calls: sizes.callsPerRunner });
        const after = cpu(kind);
        const threadsAfter = threadCpuSeconds(pids.starter[kind]);
        if (kind === 'gate') {
          windows.push({ fromUs, toUs: nowUs() });
          const queriesAfter = [
            await queryCounts(api, apiLines),
            await queryCounts(worker.process, worker.lines),
          ];
          queriesAfter.forEach((counts, i) => {
            roundTrips.waited += counts.waited - (queriesBefore[i]?.waited ?? 0);
            roundTrips.pipelined += counts.pipelined - (queriesBefore[i]?.pipelined ?? 0);
          });
          if (notCounted === undefined)
            for (const [text, { calls: n }] of await statementsSinceReset(db))
              byText.set(text, (byText.get(text) ?? 0) + n);
          notices += (await noticesSoFar()) - noticesBefore;
        }
        const total = totals[kind];
        for (const [name, seconds] of Object.entries(after))
          total.seconds[name] = (total.seconds[name] ?? 0) + seconds - (before[name] ?? 0);
        const starterSeconds = (after.starter ?? 0) - (before.starter ?? 0);
        const threads = byThreadKind(
          pids.starter[kind],
          threadsBefore,
          threadsAfter,
          starterSeconds,
        );
        for (const [name, seconds] of Object.entries(threads))
          total.threads[name] = (total.threads[name] ?? 0) + seconds;
        total.calls += sizes.runners * sizes.callsPerRunner;
        total.ms += ms;
      }
    }
    printCpu(totals, sizes);
    printStatements(totals.gate.calls, roundTrips, notices, byText, notCounted);
    return {
      processes: new Map([
        [pids.starter.gate, 'API'],
        [pids.worker, 'worker process'],
      ]),
      windows,
    };
  } catch (err) {
    process.stderr.write(`the API's last words:\n${apiLines.slice(-20).join('\n')}\n`);
    throw err;
  } finally {
    await db.end();
    await floor.stop();
    await api.stop('SIGTERM', 30_000);
  }
}

function printCpu(totals: { gate: Kind; floor: Kind }, sizes: CpuSizes): void {
  const { gate, floor } = totals;
  process.stdout.write(
    `\nCPU seconds per 1,000 calls, by process: ${sizes.rounds} rounds of ${sizes.runners} runners x ${sizes.callsPerRunner} calls, the floor's and the gate's in turn (${gate.calls} calls each):\n`,
  );
  const column = (text: string) => text.padStart(14);
  process.stdout.write(`  ${''.padEnd(60)}${column('gate: allow')}${column('floor: empty')}\n`);
  const line = (label: string, g: string, f: string) =>
    process.stdout.write(`  ${label.padEnd(60)}${column(g)}${column(f)}\n`);
  const seconds = (kind: Kind, row: string) => perThousand(kind.seconds[row] ?? 0, kind.calls);
  const together = (kind: Kind, with_: readonly string[]) =>
    with_.reduce((sum, row) => sum + seconds(kind, row), 0);
  const gateRows = ['starter', 'worker', 'temporal', 'postgres'] as const;
  const floorRows = ['starter', 'temporal', 'postgres'] as const;
  for (const row of gateRows)
    line(
      rows[row],
      `${seconds(gate, row).toFixed(2)} s`,
      (floorRows as readonly string[]).includes(row) ? `${seconds(floor, row).toFixed(2)} s` : '-',
    );
  const gateTotal = together(gate, gateRows);
  const floorTotal = together(floor, floorRows);
  line('together', `${gateTotal.toFixed(2)} s`, `${floorTotal.toFixed(2)} s`);
  line(rows.runners, `${seconds(gate, 'runners').toFixed(2)} s`, '-');
  line("the API's / the floor's process, by thread:", '', '');
  for (const [key, label] of Object.entries(threadKinds)) {
    const perKind = (kind: Kind) => perThousand(kind.threads[key] ?? 0, kind.calls).toFixed(2);
    line(`  ${label}`, `${perKind(gate)} s`, `${perKind(floor)} s`);
  }
  line(
    'calls per second',
    ((gate.calls * 1000) / gate.ms).toFixed(0),
    ((floor.calls * 1000) / floor.ms).toFixed(0),
  );
  process.stdout.write(
    `  CPU per decision / CPU per empty workflow, together: ${(gateTotal / floorTotal).toFixed(2)}\n`,
  );
}

function printStatements(
  decisions: number,
  roundTrips: PgQueryCounts,
  notices: number,
  byText: Map<string, number>,
  notCounted: string | undefined,
): void {
  const per = (n: number) => (n / decisions).toFixed(2).padStart(7);
  process.stdout.write(`\nPostgreSQL per allowed decision, over the gate's rounds:\n`);
  process.stdout.write(
    `  ${per(roundTrips.waited)}  round trips: queries the API's and the worker's pg clients sent and awaited\n`,
  );
  if (roundTrips.pipelined > 0)
    process.stdout.write(
      `  ${per(roundTrips.pipelined)}  queries sent pipelined, several to a round trip\n`,
    );
  process.stdout.write(
    `  ${per(notices)}  notices sent on the channels the API listens on (each reaches every API process)\n`,
  );
  if (notCounted !== undefined) {
    process.stdout.write(`  statements not counted: ${notCounted}\n`);
    return;
  }
  const all = [...byText.values()].reduce((a, b) => a + b, 0);
  const control = [...byText.entries()]
    .filter(([text]) => /^(begin|commit|rollback)\b/i.test(text))
    .reduce((sum, [, n]) => sum + n, 0);
  process.stdout.write(
    `  ${per(all)}  statements PostgreSQL ran (pg_stat_statements, every session of the database)\n`,
  );
  process.stdout.write(`  ${per(control)}  of them BEGIN, COMMIT or ROLLBACK\n`);
  process.stdout.write('  by statement, most run first:\n');
  for (const [text, n] of [...byText.entries()].sort((a, b) => b[1] - a[1]).slice(0, 20))
    process.stdout.write(`  ${per(n)}  ${shortText(text)}\n`);
}
