/**
 * `npm test` after lint and typecheck: starts its own PostgreSQL and Temporal dev server on the
 * `test` ports of temporal-dev.yaml (so a running `npm run dev` is untouched) and a shared
 * worker, then runs the test files with Node's test runner in two phases, and stops all it
 * started, also when tests fail:
 *   1. every file that shares nothing with others, four at a time in four processes that take
 *      the files from one queue, the slowest first (test-shard.ts);
 *   2. the `*.serial.test.ts` files, which stop or disturb shared services, one at a time in one
 *      process;
 *   3. for the whole suite, the bench's check: the gate against Temporal's floor on a small
 *      sample, failing when a ratio regresses past its threshold.
 */
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { finished } from 'node:stream/promises';
import { run } from 'node:test';
import { spec } from 'node:test/reporters';
import { projectRoot } from '../devstack/stack-config.js';
import { startNodeProcess, startStack } from '../devstack/stack.js';
import { compiledTreeVariable } from '../devstack/node-entry.js';
import { bundleWorkflowTo } from '../../src/worker.js';
import { compileForTests, freshCompiledTree } from './build.js';
import { keepDurations, slowestFirst } from './durations.js';
import type { ShardQueue } from './shard.js';

/**
 * Processes of the first phase, each running one file at a time from the phase's queue. The
 * phase keeps both cores busy: more processes measured no faster.
 */
const concurrency = 4;

/** Where each file's duration is kept between runs (`.data/` is never committed). */
const durationsFile = path.join(projectRoot, '.data', 'test-durations.json');
/** A full run's figures, kept with the code, for a clone that has no runs of its own. */
const keptDurations = path.join(projectRoot, 'test', 'durations.json');

function testFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return testFiles(full);
    return entry.name.endsWith('.test.ts') ? [full] : [];
  });
}

interface Phase {
  name: string;
  files: string[];
  concurrency: number;
}

/** The counts the runner's own summary gives (its `ℹ tests N` lines), and whether all passed. */
interface PhaseResult {
  ok: boolean;
  counts: Record<string, number>;
}

/**
 * The processes of a phase: each an entry file that runs files from the phase's queue (see
 * test-shard.ts) until none is left.
 */
function shardEntries(phase: Phase): string[] {
  const queueDir = path.join(scratch, phase.name);
  mkdirSync(queueDir);
  const files = slowestFirst(phase.files, {
    root: projectRoot,
    kept: keptDurations,
    local: durationsFile,
  });
  const queue: ShardQueue = { root: projectRoot, files };
  writeFileSync(path.join(queueDir, 'queue.json'), JSON.stringify(queue));
  const shardModule = pathToFileURL(path.join(compiledTree, 'tools/test/shard.js')).href;
  const processes = Math.min(phase.concurrency, files.length);
  return Array.from({ length: processes }, (_, index) => {
    const entry = path.join(queueDir, `process-${index + 1}.mjs`);
    writeFileSync(
      entry,
      `import { runShard } from ${JSON.stringify(shardModule)};\n` +
        `await runShard(${JSON.stringify(queueDir)});\n`,
    );
    return entry;
  });
}

/** Runs one phase with the spec reporter on stdout; keeps each file's duration for next time. */
async function runPhase(phase: Phase): Promise<PhaseResult> {
  process.stdout.write(
    `\n▶ ${phase.name}: ${phase.files.length} files, ${phase.concurrency} at a time\n`,
  );
  const entries = shardEntries(phase);
  const stream = run({ files: entries, concurrency: entries.length });
  const result: PhaseResult = { ok: true, counts: {} };
  const durations: Record<string, number> = {};
  // Each file is one top-level suite named by its path from the root.
  const addDuration = (test: {
    name: string;
    nesting: number;
    details: { duration_ms: number };
  }) => {
    const file = path.join(projectRoot, test.name);
    if (test.nesting === 0 && phase.files.includes(file))
      durations[file] = test.details.duration_ms;
  };
  stream.on('test:pass', addDuration);
  stream.on('test:fail', (test) => {
    result.ok = false;
    addDuration(test);
  });
  stream.on('test:diagnostic', ({ message, nesting }) => {
    const count = /^(tests|pass|fail|cancelled|duration_ms) ([\d.]+)$/.exec(message);
    if (nesting === 0 && count) result.counts[count[1] ?? ''] = Number(count[2]);
  });
  const report = stream.pipe(new spec());
  report.pipe(process.stdout, { end: false });
  await finished(report);
  keepDurations(durations, durationsFile);
  // Every file ran and reported, passing or failing: a process that ended early fails the phase.
  const unreported = phase.files.filter((file) => durations[file] === undefined);
  if (unreported.length > 0) {
    result.ok = false;
    process.stdout.write(
      `✖ ${unreported.length} files never reported: ${unreported.map((f) => path.relative(projectRoot, f)).join(', ')}\n`,
    );
  }
  return result;
}

/** The bench's `--check` on this stack, alone on it; whether every ratio held. */
async function runBenchCheck(env: NodeJS.ProcessEnv): Promise<boolean> {
  process.stdout.write('\n▶ bench ratios: the gate against the floor, a small sample\n');
  const started = Date.now();
  const bench = startNodeProcess('bench', 'tools/bench.ts', env, { args: ['--check'] });
  const code = await bench.exited;
  process.stdout.write(
    `bench ratios: ${code === 0 ? 'ok' : 'failed'} in ${Date.now() - started} ms\n`,
  );
  return code === 0;
}

/** The phases and the bench's check beside the shared worker; the run's exit code. */
async function runPhases(): Promise<number> {
  const worker = startNodeProcess('worker', 'src/worker.ts', process.env, { quiet: true });
  try {
    const started = Date.now();
    const results: PhaseResult[] = [];
    for (const phase of phases) results.push(await runPhase(phase));
    const benchHeld = only.length > 0 || (await runBenchCheck(process.env));
    const sum = (key: string) => results.reduce((n, r) => n + (r.counts[key] ?? 0), 0);
    process.stdout.write(
      `\nall phases: ℹ tests ${sum('tests')}  ℹ pass ${sum('pass')}  ℹ fail ${sum('fail')}  ` +
        `ℹ cancelled ${sum('cancelled')}  ℹ duration_ms ${sum('duration_ms').toFixed(0)}  ` +
        `ℹ wall_ms ${Date.now() - started}\n`,
    );
    return benchHeld && results.every((r) => r.ok) ? 0 : 1;
  } finally {
    await worker.stop();
  }
}

const only = process.argv.slice(2).map((f) => path.resolve(f));
const files = only.length > 0 ? only : testFiles(path.join(projectRoot, 'test')).sort();
const isSerial = (file: string) => file.endsWith('.serial.test.ts');
const phases: Phase[] = [
  { name: 'concurrent', files: files.filter((f) => !isSerial(f)), concurrency },
  { name: 'serial', files: files.filter(isSerial), concurrency: 1 },
].filter((phase) => phase.files.length > 0);

// The workflow is bundled once for the whole run, while the services start: the shared worker,
// every worker a test starts and every test process load it instead of bundling again.
const scratch = mkdtempSync(path.join(tmpdir(), 'gate-test-'));
const bundleFile = path.join(scratch, 'workflow-bundle.js');
const bundled = bundleWorkflowTo(bundleFile);
bundled.catch(() => undefined); // awaited below; a failure surfaces there
// The tree compiled to JavaScript for the run's processes (test-build.ts).
const compiledTree = freshCompiledTree(process.pid);
const compiled = compileForTests(compiledTree);
compiled.catch(() => undefined); // awaited below; a failure surfaces there
let exitCode = 1;
try {
  const stack = await startStack('test', { fresh: true, quietTemporal: true });
  try {
    await bundled;
    await compiled;
    // The test files run in child processes of this one, with its environment, on the compiled
    // tree: without this process's TypeScript loader.
    process.execArgv = ['--enable-source-maps'];
    Object.assign(process.env, {
      ...stack.env,
      [compiledTreeVariable]: compiledTree,
      GATE_WORKFLOW_BUNDLE: bundleFile,
      GATE_TEST_TEMPORAL_BIN: stack.temporalBinary,
      GATE_TEST_PROFILE: 'test',
    });
    exitCode = await runPhases();
  } finally {
    await stack.stop();
  }
} finally {
  rmSync(scratch, { recursive: true, force: true });
  rmSync(compiledTree, { recursive: true, force: true });
}
process.exit(exitCode);
