import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, test } from 'vitest';
import type { TemporalConfig } from '../../src/config.js';
import { createGateWorker } from '../../src/worker.js';
import { Connection } from '@temporalio/client';
import { connectionOptions } from '../../src/temporal/connections.js';
import { startTestApi } from '../support/api.js';
import { testConfig } from '../support/env.js';
import { createRun, expectStatus, seedWorkspace, toolCallUntilAnswered } from '../support/seed.js';
import { startTlsProxy, testPki, type TestPki, type TlsProxy } from '../support/tls-proxy.js';

const serverName = 'temporal.gate.test';
let pki: TestPki;
let tlsProxy: TlsProxy;
let mtlsProxy: TlsProxy;

beforeAll(async () => {
  pki = testPki();
  pki.authority('server-ca');
  pki.leaf('server', 'server-ca', serverName);
  pki.authority('client-ca');
  pki.leaf('client', 'client-ca', 'gate-worker');
  pki.authority('stranger-ca');
  pki.leaf('stranger', 'stranger-ca', serverName);
  const upstream = testConfig().temporal.address;
  const server = { cert: pki.read('server.crt'), key: pki.read('server.key') };
  tlsProxy = await startTlsProxy(upstream, server);
  mtlsProxy = await startTlsProxy(upstream, { ...server, clientCa: pki.read('client-ca.crt') });
});
afterAll(async () => {
  await tlsProxy.close();
  await mtlsProxy.close();
  pki.remove();
});

const trustingServer = () => ({
  serverRootCACertificate: pki.read('server-ca.crt'),
  serverNameOverride: serverName,
});
const clientPair = () => ({ crt: pki.read('client.crt'), key: pki.read('client.key') });

/** An API and a worker of their own task queue, both through `temporal`; one call decided. */
async function callThrough(temporal: Omit<TemporalConfig, 'namespace' | 'taskQueue'>) {
  const overrides = { temporal: { ...temporal, taskQueue: `tls-${randomUUID()}` } };
  const api = await startTestApi(overrides);
  const { worker, close } = await createGateWorker(testConfig(overrides));
  const running = worker.run();
  try {
    const seed = await seedWorkspace(api);
    const run = await createRun(api, seed);
    const answer = await expectStatus(
      toolCallUntilAnswered(api, run, 'c1', {
        tool: 'Read',
        arguments: { file_path: 'README.md' },
      }),
      200,
    );
    assert.equal(answer.decision, 'allow');
  } finally {
    worker.shutdown();
    await running;
    await close();
    await api.close();
  }
}

/** Whether a client connected as the API connects (src/temporal/connections.ts) gets through. */
async function assertRefused(temporal: TemporalConfig) {
  await assert.rejects(
    Connection.connect({ ...connectionOptions(temporal), connectTimeout: 5_000 }),
  );
}

describe('Temporal behind TLS', () => {
  test('the API and the worker connect through a TLS proxy they trust by its CA', async () => {
    const before = tlsProxy.accepted();
    await callThrough({ address: tlsProxy.address, tls: trustingServer() });
    assert.ok(tlsProxy.accepted() >= before + 2, 'both connected through the proxy');
  });

  test('with client certificates (mTLS) they connect; without one the server refuses', async () => {
    await callThrough({
      address: mtlsProxy.address,
      tls: { ...trustingServer(), clientCertPair: clientPair() },
    });
    await assertRefused({
      ...testConfig().temporal,
      address: mtlsProxy.address,
      tls: trustingServer(),
    });
  });

  test('a server certificate they do not trust is refused by the API and the worker', async () => {
    const untrusting = {
      address: tlsProxy.address,
      tls: { serverRootCACertificate: pki.read('stranger-ca.crt'), serverNameOverride: serverName },
    };
    await assertRefused({ ...testConfig().temporal, ...untrusting });
    await assert.rejects(
      createGateWorker(
        testConfig({ temporal: { ...untrusting, taskQueue: `tls-${randomUUID()}` } }),
      ),
    );
  });
});
