import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { waitFor, type ManagedProcess } from '../../tools/devstack/child-process.js';
import { startNodeProcess } from '../../tools/devstack/stack.js';
import type { Faults } from './fault-worker.js';
import { gateWorkflowBundle } from './workflow-bundle.js';

let bundleFile: Promise<string> | undefined;

/** The workflow bundle as a file, so each worker started skips bundling. */
function workflowBundleFile(): Promise<string> {
  bundleFile ??= gateWorkflowBundle().then((bundle) => {
    if ('codePath' in bundle) return bundle.codePath;
    const file = path.join(mkdtempSync(path.join(tmpdir(), 'gate-bundle-')), 'workflows.js');
    writeFileSync(file, bundle.code);
    return file;
  });
  return bundleFile;
}

/**
 * A gate worker process of a test's own (its own task queue, or its own Temporal server, given
 * in `env`), with injected faults when the test needs a stage to stall or fail. Resolves once
 * the worker is polling.
 */
export async function startWorkerProcess(
  name: string,
  env: NodeJS.ProcessEnv,
  { faults = {}, output = [] }: { faults?: Faults; output?: string[] } = {},
): Promise<ManagedProcess> {
  const worker = startNodeProcess(
    name,
    'test/support/fault-worker.ts',
    { ...process.env, GATE_WORKFLOW_BUNDLE: await workflowBundleFile(), ...env },
    { quiet: true, capture: output, args: [JSON.stringify(faults)] },
  );
  await waitFor(
    `${name} to poll`,
    () => {
      if (worker.child.exitCode !== null) {
        throw new Error(`${name} exited with ${worker.child.exitCode}: ${output.join('\n')}`);
      }
      if (!output.some((line) => line.startsWith('worker polling'))) throw new Error('not yet');
      return Promise.resolve();
    },
    { timeoutMs: 90_000, intervalMs: 100 },
  );
  return worker;
}
