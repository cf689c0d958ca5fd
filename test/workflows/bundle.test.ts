import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'vitest';
import { gateWorkflowBundle } from '../support/workflow-bundle.js';

test('the workflow code bundles for the deterministic sandbox, importing nothing that does I/O', async () => {
  // The run's one bundle (tools/test/services.ts), built from src/workflows like any worker's.
  const bundle = await gateWorkflowBundle();
  const code = 'code' in bundle ? bundle.code : readFileSync(bundle.codePath, 'utf8');
  // The bundler refuses Node built-ins; check our own modules did not drag in a driver or client.
  for (const forbidden of [
    'node_modules/pg/',
    'node_modules/fastify/',
    '@temporalio/client/lib',
    'src/store/',
    'src/api/',
    'src/domain/tools/',
    'node_modules/re2/',
  ]) {
    assert.equal(code.includes(forbidden), false, `workflow bundle contains ${forbidden}`);
  }
  assert.match(code, /src\/workflows\/gate\.ts/);
  assert.match(code, /src\/domain\/gate\/decisions\.ts/);
});

test('the gate workflow and its interceptors are evaluated once per worker thread and shared by its workflows, not once per workflow', async () => {
  const bundle = await gateWorkflowBundle();
  const code = 'code' in bundle ? bundle.code : readFileSync(bundle.codePath, 'utf8');
  // What the SDK runs when it builds a worker thread's context, before any workflow exists:
  // the modules it requires there land in the cache every workflow of the thread reads.
  const preload = /preloadModules = function preloadModules\(\) \{([\s\S]*?)\n\}/.exec(code)?.[1];
  assert.ok(preload, 'the bundle preloads no module');
  for (const shared of [
    'src/workflows/index',
    'src/workflows/log-context',
    'src/workflows/tracing',
  ])
    assert.match(preload, new RegExp(`__webpack_require__\\([^)]*${shared}\\.[jt]s`), shared);
  // OpenTelemetry stays out of it: a traced workflow loads it for itself (src/workflows/tracing.ts).
  assert.doesNotMatch(preload, /opentelemetry/);
});
