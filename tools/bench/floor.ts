/**
 * What any Temporal design pays on this server, measured beside the gate: an empty workflow
 * through update-with-start (the API's ordinary client, the worker elsewhere on its own
 * connection), and the same started eagerly by a client sharing its worker's connection.
 */
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client, Connection, WithStartWorkflowOperation } from '@temporalio/client';
import { Worker } from '@temporalio/worker';
import type { TemporalConfig } from '../../src/config.js';
import { connectionOptions, workerConnection } from '../../src/temporal/connections.js';
import { floorUpdate } from './floor-workflow.js';

const workflowsPath = path.join(path.dirname(fileURLToPath(import.meta.url)), 'floor-workflow.ts');

export async function startFloor(config: TemporalConfig) {
  const taskQueue = `bench-floor-${randomUUID()}`;
  const native = await workerConnection(config);
  const worker = await Worker.create({
    connection: native,
    namespace: config.namespace,
    taskQueue,
    workflowsPath,
  });
  const running = worker.run();
  const eager = new Client({ connection: native, namespace: config.namespace });
  const plain = new Client({
    connection: await Connection.connect(connectionOptions(config)),
    namespace: config.namespace,
  });

  /** An empty workflow through update-with-start, answered by its update. */
  const updateWithStart = () =>
    plain.workflow.executeUpdateWithStart(floorUpdate, {
      updateId: 'floor',
      startWorkflowOperation: new WithStartWorkflowOperation('floor', {
        workflowId: `floor-${randomUUID()}`,
        taskQueue,
        workflowIdConflictPolicy: 'USE_EXISTING',
      }),
    });

  /** An empty workflow started eagerly on the worker sharing the client's connection. */
  const eagerStart = async () => {
    const handle = await eager.workflow.start('floor', {
      workflowId: `floor-${randomUUID()}`,
      taskQueue,
      workflowIdConflictPolicy: 'USE_EXISTING',
      requestEagerStart: true,
    });
    return (await handle.result()) as string;
  };

  const stop = async () => {
    worker.shutdown();
    await running;
    await plain.connection.close();
    await native.close();
  };
  return { updateWithStart, eagerStart, stop };
}
