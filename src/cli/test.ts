/**
 * `npm test` after lint and typecheck: starts its own PostgreSQL and Temporal dev server on the
 * `test` ports of temporal-dev.yaml (so a running `npm run dev` is untouched), a shared worker,
 * then every test file under test/ with Node's test runner, and stops all it started, also
 * when tests fail.
 */
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { startProcess } from '../devstack/child-process.js';
import { projectRoot } from '../devstack/stack-config.js';
import { startNodeProcess, startStack } from '../devstack/stack.js';

function testFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return testFiles(full);
    return entry.name.endsWith('.test.ts') ? [full] : [];
  });
}

const only = process.argv.slice(2).map((f) => path.resolve(f));
const files = only.length > 0 ? only : testFiles(path.join(projectRoot, 'test')).sort();

const stack = await startStack('test', { fresh: true, quietTemporal: true });
let exitCode = 1;
try {
  const env = {
    ...stack.env,
    GATE_TEST_TEMPORAL_BIN: stack.temporalBinary,
    GATE_TEST_PROFILE: 'test',
  };
  const worker = startNodeProcess('worker', 'src/worker.ts', env, { quiet: true });
  try {
    const runner = startProcess(
      'test',
      process.execPath,
      ['--import', 'tsx', '--test', '--test-concurrency=1', '--test-reporter=spec', ...files],
      { env, cwd: projectRoot, stdio: ['ignore', 'inherit', 'inherit'] },
    );
    const code = await runner.exited;
    exitCode = typeof code === 'number' ? code : 1;
  } finally {
    await worker.stop();
  }
} finally {
  await stack.stop();
}
process.exit(exitCode);
