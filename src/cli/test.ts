/**
 * `npm test` after lint and typecheck: starts its own PostgreSQL and Temporal dev server on the
 * `test` ports of temporal-dev.yaml (so a running `npm run dev` is untouched) and a shared
 * worker, then runs the test files with Node's test runner in two phases, and stops all it
 * started, also when tests fail:
 *   1. every file that shares nothing with others, several at a time;
 *   2. the `*.serial.test.ts` files, which stop or disturb shared services, one at a time.
 */
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startProcess } from '../devstack/child-process.js';
import { projectRoot } from '../devstack/stack-config.js';
import { startNodeProcess, startStack } from '../devstack/stack.js';

/** Files at once in the first phase: most of their time is spent waiting on services. */
const concurrency = 4;

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

/** The runner's own counts of a phase, read from its TAP report. */
type Tally = Record<'tests' | 'pass' | 'fail' | 'cancelled' | 'duration_ms', number>;

function tallyOf(tapFile: string): Tally {
  const text = readFileSync(tapFile, 'utf8');
  const count = (key: string) =>
    Number(new RegExp(`^# ${key} ([\\d.]+)$`, 'm').exec(text)?.[1] ?? 0);
  return {
    tests: count('tests'),
    pass: count('pass'),
    fail: count('fail'),
    cancelled: count('cancelled'),
    duration_ms: count('duration_ms'),
  };
}

async function runPhase(phase: Phase, env: NodeJS.ProcessEnv, tapFile: string) {
  process.stdout.write(
    `\n▶ ${phase.name}: ${phase.files.length} files, ${phase.concurrency} at a time\n`,
  );
  const runner = startProcess(
    'test',
    process.execPath,
    [
      '--import',
      'tsx',
      '--test',
      `--test-concurrency=${phase.concurrency}`,
      '--test-reporter=spec',
      '--test-reporter-destination=stdout',
      '--test-reporter=tap',
      `--test-reporter-destination=${tapFile}`,
      ...phase.files,
    ],
    { env, cwd: projectRoot, stdio: ['ignore', 'inherit', 'inherit'] },
  );
  const code = await runner.exited;
  return { ok: code === 0, tally: tallyOf(tapFile) };
}

const only = process.argv.slice(2).map((f) => path.resolve(f));
const files = only.length > 0 ? only : testFiles(path.join(projectRoot, 'test')).sort();
const isSerial = (file: string) => file.endsWith('.serial.test.ts');
const phases: Phase[] = [
  { name: 'concurrent', files: files.filter((f) => !isSerial(f)), concurrency },
  { name: 'serial', files: files.filter(isSerial), concurrency: 1 },
].filter((phase) => phase.files.length > 0);

const stack = await startStack('test', { fresh: true, quietTemporal: true });
const reports = mkdtempSync(path.join(tmpdir(), 'gate-test-'));
let exitCode = 1;
try {
  const env = {
    ...stack.env,
    GATE_TEST_TEMPORAL_BIN: stack.temporalBinary,
    GATE_TEST_PROFILE: 'test',
  };
  const worker = startNodeProcess('worker', 'src/worker.ts', env, { quiet: true });
  try {
    const started = Date.now();
    const results: { ok: boolean; tally: Tally }[] = [];
    for (const [index, phase] of phases.entries()) {
      results.push(await runPhase(phase, env, path.join(reports, `phase-${index}.tap`)));
    }
    const sum = (key: keyof Tally) => results.reduce((n, r) => n + r.tally[key], 0);
    process.stdout.write(
      `\nall phases: ℹ tests ${sum('tests')}  ℹ pass ${sum('pass')}  ℹ fail ${sum('fail')}  ` +
        `ℹ cancelled ${sum('cancelled')}  ℹ wall_ms ${Date.now() - started}\n`,
    );
    exitCode = results.every((r) => r.ok) ? 0 : 1;
  } finally {
    await worker.stop();
  }
} finally {
  rmSync(reports, { recursive: true, force: true });
  await stack.stop();
}
process.exit(exitCode);
