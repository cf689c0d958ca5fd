import assert from 'node:assert/strict';
import { test } from 'node:test';
import { bundleWorkflowCode } from '@temporalio/worker';
import { workflowsPath } from '../../src/worker.js';

const noop = () => undefined;
const quiet = { log: noop, trace: noop, debug: noop, info: noop, warn: noop, error: noop };

test('the workflow code bundles for the deterministic sandbox, importing nothing that does I/O', async () => {
  const { code } = await bundleWorkflowCode({
    workflowsPath,
    logger: quiet,
  });
  // The bundler refuses Node built-ins; check our own modules did not drag in a driver or client.
  for (const forbidden of [
    'node_modules/pg/',
    'node_modules/fastify/',
    '@temporalio/client/lib',
    'src/store/',
    'src/api/',
  ]) {
    assert.equal(code.includes(forbidden), false, `workflow bundle contains ${forbidden}`);
  }
  assert.match(code, /src\/workflows\/gate\.ts/);
});
