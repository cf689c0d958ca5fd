import { bundleWorkflowCode, type WorkflowBundleOption } from '@temporalio/worker';
import { gateBundleOptions } from '../../src/worker.js';

const noop = () => undefined;
const quietLogger = {
  log: noop,
  trace: noop,
  debug: noop,
  info: noop,
  warn: noop,
  error: noop,
};

let bundle: Promise<WorkflowBundleOption> | undefined;

/**
 * The gate workflow's code bundled for the sandbox: the one the test run built once
 * (GATE_WORKFLOW_BUNDLE, as the workers get it), else bundled here once per test process.
 */
export function gateWorkflowBundle(): Promise<WorkflowBundleOption> {
  const prebuilt = process.env.GATE_WORKFLOW_BUNDLE;
  bundle ??= prebuilt
    ? Promise.resolve({ codePath: prebuilt })
    : bundleWorkflowCode({ ...gateBundleOptions, logger: quietLogger });
  return bundle;
}
