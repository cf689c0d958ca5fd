/**
 * vitest's global setup for the test files that need services (vitest.config.ts): PostgreSQL and
 * the Temporal dev server of temporal-dev.yaml's `test` profile (GATE_TEST_SLOT moves them), the
 * workflow bundled once, the tree compiled once for the processes tests start, and a shared
 * worker, all started once per run and stopped after it, also when tests fail.
 *
 * The setup answers at once with the environment those files run in (everything in it is known
 * before anything starts) and starts the services in the background: the files that need none run
 * meanwhile, and each file that does waits for them (./services-ready.ts). When the run asks for
 * it (GATE_BENCH_CHECK=1, as `npm test` does), the bench's check runs last, alone on the stack.
 */
import { mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { bundleWorkflowTo } from '../../src/worker.js';
import type { ManagedProcess } from '../devstack/child-process.js';
import { compiledTreeVariable } from '../devstack/node-entry.js';
import {
  planStack,
  startNodeProcess,
  startStack,
  type Stack,
  type StackPlan,
} from '../devstack/stack.js';
import { temporalCliPath } from '../devstack/temporal-server.js';
import { compileForTests, freshCompiledTree } from './compiled-tree.js';

/** What a test file is given: its environment, and the file that says when the services are up. */
export interface TestServices {
  env: Record<string, string>;
  readyFile: string;
}

declare module 'vitest' {
  export interface ProvidedContext {
    testServices: TestServices;
  }
}

/** Written to `readyFile` once the services are up, or could not start. */
export type Readiness = { ok: true } | { ok: false; error: string };

interface RunServices extends TestServices {
  /** The projects whose setup has not been torn down yet. */
  users: number;
  close: () => Promise<void>;
}

/** Every project (the services, outage and serial files) shares the run's one stack. */
const shared = Symbol.for('fluidbox-gate.test-services');
type Holder = Record<typeof shared, RunServices | undefined>;

/** A database URL as it may be printed: its password replaced. */
function withoutPassword(url: string | undefined): string {
  return url === undefined ? '?' : url.replace(/^(postgres(?:ql)?:\/\/[^:@/]*:)[^@]*@/, '$1…@');
}

function startServices(): RunServices {
  const plan: StackPlan = planStack('test');
  const scratch = mkdtempSync(path.join(tmpdir(), 'gate-test-'));
  const bundleFile = path.join(scratch, 'workflow-bundle.js');
  const compiledTree = freshCompiledTree(process.pid);
  const readyFile = path.join(scratch, 'ready.json');
  const env: Record<string, string> = {
    ...plan.variables,
    GATE_TEST_PROFILE: 'test',
    GATE_WORKFLOW_BUNDLE: bundleFile,
    GATE_TEST_TEMPORAL_BIN: temporalCliPath(plan.profile.cliVersion),
    [compiledTreeVariable]: compiledTree,
  };

  let stack: Stack | undefined;
  let worker: ManagedProcess | undefined;
  const started = (async (): Promise<Readiness> => {
    const parts = await Promise.allSettled([
      startStack('test', { fresh: true, quietTemporal: true, plan }).then((s) => (stack = s)),
      bundleWorkflowTo(bundleFile),
      compileForTests(compiledTree),
    ]);
    const failed = parts.find((p) => p.status === 'rejected');
    if (failed)
      return { ok: false, error: String((failed.reason as Error).stack ?? failed.reason) };
    // The files were told where PostgreSQL would be; a cluster left running may be elsewhere.
    if (stack?.databaseUrl !== env.DATABASE_URL)
      return {
        ok: false,
        error: `PostgreSQL is at ${withoutPassword(stack?.databaseUrl)}, not ${withoutPassword(env.DATABASE_URL)}`,
      };
    worker = startNodeProcess(
      'worker',
      'src/worker.ts',
      { ...process.env, ...env },
      { quiet: true },
    );
    return { ok: true };
  })().catch((error: unknown): Readiness => ({ ok: false, error: String(error) }));
  const since = Date.now();
  void started.then((readiness) => {
    const seconds = ((Date.now() - since) / 1000).toFixed(1);
    process.stdout.write(`\n▶ services ${readiness.ok ? 'up' : 'failed'} after ${seconds} s\n`);
    // Written whole, then renamed: a waiting file never reads half of it.
    writeFileSync(`${readyFile}.partial`, JSON.stringify(readiness));
    renameSync(`${readyFile}.partial`, readyFile);
  });

  return {
    env,
    readyFile,
    users: 0,
    async close() {
      const readiness = await started;
      try {
        if (readiness.ok && process.env.GATE_BENCH_CHECK === '1') await benchCheck(env);
      } finally {
        await worker?.stop();
        await stack?.stop();
        rmSync(scratch, { recursive: true, force: true });
        rmSync(compiledTree, { recursive: true, force: true });
      }
    },
  };
}

/** The bench's `--check` on this stack after the last file: the run fails when a ratio regresses. */
async function benchCheck(env: Record<string, string>): Promise<void> {
  process.stdout.write('\n▶ bench ratios: the gate against the floor, a small sample\n');
  const started = Date.now();
  const bench = startNodeProcess(
    'bench',
    'tools/bench.ts',
    { ...process.env, ...env },
    {
      args: ['--check'],
    },
  );
  const code = await bench.exited;
  process.stdout.write(
    `bench ratios: ${code === 0 ? 'ok' : 'failed'} in ${Date.now() - started} ms\n`,
  );
  if (code !== 0) process.exitCode = 1;
}

export default function setup(project: TestProject): () => Promise<void> {
  const holder = globalThis as unknown as Holder;
  const services = (holder[shared] ??= startServices());
  services.users += 1;
  project.provide('testServices', { env: services.env, readyFile: services.readyFile });
  return async () => {
    services.users -= 1;
    if (services.users > 0) return;
    holder[shared] = undefined;
    await services.close();
  };
}
