import type { ManagedProcess } from '../../src/devstack/child-process.js';
import { startNodeProcess } from '../../src/devstack/stack.js';
import type { Faults } from './fault-worker.js';

/**
 * A gate worker process of a test's own (its own task queue, or its own Temporal server, given
 * in `env`), with injected faults when the test needs a stage to stall or fail.
 */
export function startFaultWorker(
  name: string,
  env: NodeJS.ProcessEnv,
  faults: Faults = {},
): ManagedProcess {
  return startNodeProcess(name, 'test/support/fault-worker.ts', { ...process.env, ...env }, {
    quiet: true,
    args: [JSON.stringify(faults)],
  });
}
