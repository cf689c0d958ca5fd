import { bundleWorkflowCode, type WorkflowBundle } from '@temporalio/worker';
import { workflowsPath } from '../../src/worker.js';

const noop = () => undefined;
export const quietLogger = {
  log: noop,
  trace: noop,
  debug: noop,
  info: noop,
  warn: noop,
  error: noop,
};

let bundle: Promise<WorkflowBundle> | undefined;

/** The gate workflow's code bundled for the sandbox, once per test process. */
export function gateWorkflowBundle(): Promise<WorkflowBundle> {
  bundle ??= bundleWorkflowCode({ workflowsPath, logger: quietLogger });
  return bundle;
}
