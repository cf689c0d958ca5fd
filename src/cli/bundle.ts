/**
 * `npm run bundle -- <file>`: the gate workflow bundled for the sandbox, once. A worker started
 * with GATE_WORKFLOW_BUNDLE=<file> loads it instead of bundling at start-up (seconds saved on
 * every start; build it with the deploy, from the same code the workers run).
 */
import path from 'node:path';
import { bundleWorkflowTo } from '../worker.js';

const [file] = process.argv.slice(2);
if (!file) {
  process.stderr.write('usage: npm run bundle -- <file>\n');
  process.exit(2);
}
await bundleWorkflowTo(path.resolve(file));
process.stdout.write(`wrote the workflow bundle to ${file}\n`);
