/**
 * `npm run bench`: figures and ratios. Starts a fresh stack of its own (the test profile on slot
 * 9, so it collides with neither `npm run dev` nor `npm test`), a worker process and an API, then
 * measures, on the same servers in one run: CPU per call by process, beside an empty workflow's,
 * and PostgreSQL's statements and round trips per decision (first, while nothing else polls);
 * the floor any Temporal design pays (an empty
 * workflow through update-with-start, and started eagerly), the gate's allow, first-stage deny
 * and pending answers, an approver's decision reaching a waiting runner, throughput with 30
 * runners at once against the floor's, the pure parts, ledger appends, the approvers' list with
 * 1,000 pending calls, the model proxy, and the remote MCP endpoint against the REST route.
 *
 * `--check` measures a small sample on the stack the environment names (its worker already
 * running) and fails when a gate/floor ratio passes its threshold: the suite's last phase.
 * `--cpu` measures only CPU by process, statements and round trips (`--calls N` per runner and
 * round); `--profile` adds the API's and the worker's top functions while the load ran.
 * `--pending N` holds N approvals open; `--heap` adds what they left on the API's heap.
 * `--soak [seconds]` sends allowed calls from 30 runners for that long (600 s) and follows the
 * API's memory; `--heap` adds what grew on its heap from the second minute to the end.
 * `--model` measures only the model proxy's time to first byte, on a fresh stack.
 * `--mcp` measures only the remote MCP endpoint against the REST route, on a fresh stack.
 * `--ledger` measures only ledger appends to one stream, 20 writers at once, on a fresh stack.
 * `--simulation` measures only policy simulation's throughput, in this process (no stack).
 */
import { existsSync, mkdirSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { createApi } from '../src/api/main.js';
import { loadConfig, type GateConfig } from '../src/config.js';
import { startProcess, type ManagedProcess } from './devstack/child-process.js';
import { projectRoot } from './devstack/stack-config.js';
import { startNodeProcess, startStack, type Stack } from './devstack/stack.js';
import { benchModelProxy, type ModelProxyFigures } from './bench/model-proxy.js';
import { shortText, type StatementFigures } from './bench/pg-statements.js';
import { benchRemoteMcp, printRemoteMcp } from './bench/remote-mcp.js';
import { figures, ms, show } from './bench/figures.js';
import { startFloor } from './bench/floor.js';
import { gateCalls } from './bench/gate-calls.js';
import {
  measure,
  ratios,
  seriesNames,
  type Measurement,
  type Sizes,
} from './bench/gate-vs-floor.js';
import {
  benchCpuPerCall,
  measuredNodeFlags,
  statementCounting,
  type CpuRun,
  type CpuSizes,
} from './bench/cpu-per-call.js';
import { printTopFunctions } from './bench/cpu-profile.js';
import { benchApprovalList } from './bench/approval-list.js';
import { benchPendingApprovals } from './bench/pending-approvals.js';
import { benchSoak } from './bench/soak.js';
import { benchLedgerAppends, benchPureParts } from './bench/pure-parts.js';
import { benchSimulation } from './bench/simulation.js';

/**
 * The check's ceilings. Against the floor, small samples on a shared 2-core machine swing from
 * 0.9 to 3.2 (an empty workflow needs no CPU, so load hits the gate harder): those ceilings only
 * catch the catastrophic. The eager path against the gate's own update-with-start path, both
 * doing the gate's work in the same run, held at 0.49-0.78 in every run of 30 calls, busy or
 * loaded, and at 0.42-0.50 in the suite's runs of 20: at 1.0 it fails when the eager path loses
 * its gain (twice the ratio).
 */
const ceilings: Record<string, number> = {
  'allow p50 / allow without eager start p50': 1.0,
  'allow p50 / update-with-start p50': 4.0,
  'first-stage deny p50 / update-with-start p50': 4.0,
  'pending answer p50 / update-with-start p50': 4.0,
};
/** Throughput is a floor, not a ceiling: the gate must keep at least this share of the floor's. */
const throughputAtLeast = 0.3;

const fullSizes: Sizes = {
  sequential: 150,
  decisions: 50,
  runners: 30,
  callsPerRunner: 10,
  rounds: 4,
};
/** CPU by process: 1,200 calls of each, as many as the throughput rounds. */
const fullCpuSizes: CpuSizes = { runners: 30, callsPerRunner: 10, rounds: 4 };
const checkSizes: Sizes = {
  sequential: 20,
  decisions: 5,
  runners: 10,
  callsPerRunner: 3,
  rounds: 2,
};

async function withApi<T>(config: GateConfig, work: (base: string, key: string) => Promise<T>) {
  const operatorKey = config.api.operatorKey ?? '';
  const app = createApi(config, operatorKey);
  await app.listen({ host: '127.0.0.1', port: 0 });
  try {
    return await work(
      `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`,
      operatorKey,
    );
  } finally {
    await app.close();
  }
}

/** The gate as configured and without its hosted worker, beside the floor. */
async function gateAgainstFloor(config: GateConfig, base: string, key: string, sizes: Sizes) {
  const floor = await startFloor(config.temporal);
  try {
    return await withApi({ ...config, eagerStart: false }, async (plainBase) =>
      measure(await gateCalls(base, key), await gateCalls(plainBase, key), floor, sizes),
    );
  } finally {
    await floor.stop();
  }
}

function print(m: Measurement, sizes: Sizes): void {
  process.stdout.write(
    `\nSequential, ${sizes.sequential} of each interleaved (decisions: ${sizes.decisions}):\n`,
  );
  for (const name of Object.values(seriesNames)) show(name, m.series[name] ?? figures([]));
  const { throughput: t } = m;
  const total = sizes.rounds * sizes.runners * sizes.callsPerRunner;
  process.stdout.write(
    `\n${sizes.runners} runners at once, ${total} calls of each in ${sizes.rounds} rounds taken in turn:\n`,
  );
  show(`floor: update-with-start, ${t.floor.toFixed(0)}/s`, t.floorLatency);
  show(`gate: allow, ${t.gate.toFixed(0)}/s`, t.gateLatency);
  process.stdout.write('\nRatios, gate / floor:\n');
  for (const [name, value] of Object.entries(ratios(m)))
    process.stdout.write(`  ${name.padEnd(46)} ${value.toFixed(2)}\n`);
}

/** Of the Temporal workers in this process, only warnings and errors. */
function quietWorkers(): void {
  Runtime.install({ logger: new DefaultLogger('WARN') });
}

/**
 * The worker process: with `--built-worker`, the compiled one of `npm run build` (node on its
 * JavaScript, as deployed), else the development one; with `nodeFlags` before its entry.
 */
function startBenchWorker(env: NodeJS.ProcessEnv, nodeFlags: string[], lines: string[]) {
  const options = { cwd: projectRoot, quiet: true, capture: lines };
  if (!process.argv.includes('--built-worker')) {
    const source = path.join(projectRoot, 'src/worker.ts');
    if (nodeFlags.length === 0) return startNodeProcess('worker', 'src/worker.ts', env, options);
    return startProcess('worker', process.execPath, [...nodeFlags, source], { env, ...options });
  }
  const built = path.join(projectRoot, 'dist', 'worker.js');
  if (!existsSync(built)) throw new Error('--built-worker needs `npm run build` first');
  return startProcess('worker', process.execPath, [...nodeFlags, built], {
    env: { ...env, NODE_OPTIONS: '', GATE_WORKFLOW_BUNDLE: '' },
    ...options,
  });
}

interface BenchStackOptions {
  /** Node options of the worker process. */
  workerFlags?: string[];
  /**
   * Run first, on the fresh stack with its worker process, before this process's API (and its
   * hosted worker) exists: measurements that must be the only ones polling the gate's queue.
   */
  alone?: (
    stack: Stack,
    config: GateConfig,
    worker: { process: ManagedProcess; lines: string[] },
  ) => Promise<void>;
}

/** A fresh test stack on its own slot, a worker and an API on it, for `run`; then all stopped. */
async function onBenchStack(
  run: (config: GateConfig, base: string, operatorKey: string, workerPid?: number) => Promise<void>,
  { workerFlags = [], alone }: BenchStackOptions = {},
): Promise<void> {
  quietWorkers();
  process.env.GATE_TEST_SLOT ??= '9';
  const stack = await startStack('test', {
    fresh: true,
    quietTemporal: true,
    postgresSettings: statementCounting,
  });
  const lines: string[] = [];
  const worker = startBenchWorker(stack.env, workerFlags, lines);
  const config = loadConfig(stack.env);
  try {
    await alone?.(stack, config, { process: worker, lines });
    await withApi(config, (base, key) => run(config, base, key, worker.child.pid));
  } finally {
    await worker.stop();
    await stack.stop();
  }
}

/** With `flag`, a new folder under .data/`under`/ for what it writes. */
function outputFolder(flag: string, under: string): string | undefined {
  if (!process.argv.includes(flag)) return undefined;
  const folder = path.join(
    projectRoot,
    '.data',
    under,
    new Date().toISOString().replace(/[:.]/g, '-'),
  );
  mkdirSync(folder, { recursive: true });
  return folder;
}

/** The number after a flag, or the default when the flag is absent. */
function numberAfter(flag: string, otherwise: number): number {
  const at = process.argv.indexOf(flag);
  const value = at > 0 ? Number(process.argv[at + 1]) : otherwise;
  if (!Number.isInteger(value) || value < 1) throw new Error(`${flag} takes a whole number`);
  return value;
}

/**
 * CPU by process, statements and round trips per decision (see bench/cpu-per-call.ts); with
 * `--profile`, the top functions of the API and the worker while the load ran, once their
 * profiles are written at their exit. `then` runs on the same stack afterwards.
 */
async function cpuFigures(
  then: (config: GateConfig, base: string, key: string) => Promise<void>,
): Promise<void> {
  // The CPU profiles of the measured API and worker processes.
  const profileDir = outputFolder('--profile', 'cpu-profiles');
  const sizes = {
    ...fullCpuSizes,
    callsPerRunner: numberAfter('--calls', fullCpuSizes.callsPerRunner),
  };
  let measured: CpuRun | undefined;
  await onBenchStack(then, {
    workerFlags: measuredNodeFlags(profileDir),
    alone: async (stack, config, worker) => {
      measured = await benchCpuPerCall(stack, config, worker, sizes, profileDir);
    },
  });
  if (profileDir && measured) {
    process.stdout.write(
      `\nCPU profiles while the gate's rounds ran, top functions by self time (${path.relative(process.cwd(), profileDir)}):\n`,
    );
    printTopFunctions(profileDir, measured.processes, measured.windows);
  }
}

function full(): Promise<void> {
  process.stdout.write(
    '\nfluidbox gate benchmark (one machine: servers, worker, API and runners together)\n',
  );
  return cpuFigures(async (config, base, key) => {
    print(await gateAgainstFloor(config, base, key, fullSizes), fullSizes);
    benchPureParts();
    await benchSimulation();
    await benchLedgerAppends(config.databaseUrl);
    await benchApprovalList(await gateCalls(base, key), base, config.databaseUrl);
    await modelProxyFigures(base, key, config.databaseUrl);
    await remoteMcpFigures(base, key);
  });
}

/** An allowed call through `/mcp` against the REST route, and `tools/list`. */
async function remoteMcpFigures(base: string, key: string): Promise<void> {
  const count = 200;
  printRemoteMcp(await benchRemoteMcp(await gateCalls(base, key), base, key, count), count);
}

async function modelProxyFigures(base: string, key: string, databaseUrl: string): Promise<void> {
  const { demo } = await gateCalls(base, key);
  const apis = ['anthropic', 'openai'] as const;
  const measured = await benchModelProxy(base, key, demo, databaseUrl, apis);
  for (const api of apis) {
    const proxy = measured.get(api);
    if (!proxy) continue;
    process.stdout.write(
      `\nModel proxy (${api === 'anthropic' ? 'Anthropic Messages' : 'OpenAI Chat Completions'}), time to first byte of a streamed answer, ${proxy.proxied.length} requests each, interleaved, both endpoints warmed first:\n`,
    );
    const direct = figures(proxy.direct);
    const proxied = figures(proxy.proxied);
    show('stub upstream, directly', direct);
    show('through the gate (admit, forward, meter)', proxied);
    process.stdout.write(`  added latency to first byte, p50: ${ms(proxied.p50 - direct.p50)}\n`);
    printServerTime(proxy.statements, proxy.proxied.length);
    process.stdout.write('\n');
  }
}

/**
 * PostgreSQL's own time over the measured rounds, per proxied request, by statement: the
 * admission before the first byte, the settlement after the last, and whatever any other session
 * of the database ran meanwhile (the direct requests run none). What the server spends executing,
 * apart from the round trips' travel and the processes' own work.
 */
function printServerTime(statements: ModelProxyFigures['statements'], requests: number): void {
  if (typeof statements === 'string') {
    process.stdout.write(`  PostgreSQL's statements not counted: ${statements}\n`);
    return;
  }
  const rows = [...statements.entries()].sort((a, b) => b[1].ms - a[1].ms);
  const sum = (pick: (f: StatementFigures) => number) =>
    rows.reduce((total, [, f]) => total + pick(f), 0);
  const per = (n: number) => (n / requests).toFixed(2).padStart(6);
  process.stdout.write(
    `  PostgreSQL per proxied request (pg_stat_statements, every session, the settlement included): ${per(sum((f) => f.calls)).trim()} statements, ${per(sum((f) => f.ms)).trim()} ms executing; by time:\n`,
  );
  for (const [text, f] of rows.slice(0, 8))
    process.stdout.write(`    ${per(f.ms)} ms  ${per(f.calls)} runs  ${shortText(text, 90)}\n`);
}

/** The ratios past their thresholds, as sentences. */
function regressions(m: Measurement): string[] {
  const measured: Record<string, number> = ratios(m);
  const over = Object.entries(ceilings)
    .filter(([name, ceiling]) => !((measured[name] ?? Infinity) <= ceiling))
    .map(([name, ceiling]) => `${name} is ${measured[name]?.toFixed(2)}, above ${ceiling}`);
  const share = measured['throughput gate / update-with-start'] ?? 0;
  if (!(share >= throughputAtLeast))
    over.push(
      `throughput gate / update-with-start is ${share.toFixed(2)}, below ${throughputAtLeast}`,
    );
  return over;
}

async function check(): Promise<number> {
  quietWorkers();
  const config = loadConfig(process.env);
  const m = await withApi(config, (base, key) => gateAgainstFloor(config, base, key, checkSizes));
  print(m, checkSizes);
  const over = regressions(m);
  for (const line of over) process.stdout.write(`✖ ${line}\n`);
  process.stdout.write(over.length === 0 ? '✔ every ratio within its threshold\n' : '');
  return over.length === 0 ? 0 : 1;
}

/** `--pending N`: N approvals held at once (see bench/pending-approvals.ts). */
function pending(count: number): Promise<void> {
  const heapDir = outputFolder('--heap', 'heap-snapshots');
  return onBenchStack(() => Promise.resolve(), {
    alone: (stack, config, worker) => benchPendingApprovals(stack, config, worker, count, heapDir),
  });
}

/** `--soak [seconds]`: the API's memory under a long load (see bench/soak.ts). */
function soak(seconds: number): Promise<void> {
  const heapDir = outputFolder('--heap', 'heap-snapshots');
  return onBenchStack(() => Promise.resolve(), {
    alone: (stack, config, worker) => benchSoak(stack, config, worker, seconds, heapDir),
  });
}

const pendingAt = process.argv.indexOf('--pending');
const soakAt = process.argv.indexOf('--soak');
if (process.argv.includes('--check')) process.exitCode = await check();
else if (process.argv.includes('--simulation')) await benchSimulation();
else if (process.argv.includes('--cpu')) await cpuFigures(() => Promise.resolve());
else if (process.argv.includes('--model'))
  await onBenchStack((config, base, key) => modelProxyFigures(base, key, config.databaseUrl));
else if (process.argv.includes('--mcp'))
  await onBenchStack((_config, base, key) => remoteMcpFigures(base, key));
else if (process.argv.includes('--ledger'))
  await onBenchStack((config) => benchLedgerAppends(config.databaseUrl));
else if (pendingAt > 0) await pending(Number(process.argv[pendingAt + 1] ?? 10_000));
else if (soakAt > 0)
  await soak(/^\d+$/.test(process.argv[soakAt + 1] ?? '') ? numberAfter('--soak', 600) : 600);
else await full();
