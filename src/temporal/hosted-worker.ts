/**
 * A gate worker inside the API process, on a native connection that the API's client shares: a
 * start from that client hands the workflow's first task to this worker in the start's own
 * response (eager start), skipping the server's dispatch of it. It connects in the background and
 * again after a loss, so the API starts, and answers through update-with-start, without Temporal.
 */
import { Client } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Runtime, type Worker } from '@temporalio/worker';
import type { GateConfig } from '../config.js';
import { tracingClientInterceptors } from '../telemetry/temporal-tracing.js';
import { gateDataConverter, workerConnection } from './connections.js';

const reconnectMs = 1000;

interface Hosted {
  connection: NativeConnection;
  worker: Worker;
  client: Client;
  running: Promise<void>;
  stop: () => void;
}

/** The API logs its own way: of the worker inside it, only warnings and errors. */
function quietWorkerLogs(): void {
  try {
    Runtime.install({ logger: new DefaultLogger('WARN') });
  } catch {
    // installed already, by this process's first hosted worker or by its owner
  }
}

export class HostedWorker {
  private current: Hosted | undefined;
  private opening: Promise<void> | undefined;
  private retry: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(
    private readonly config: Pick<GateConfig, 'temporal' | 'payloadKeys'>,
    private readonly createWorker: (connection: NativeConnection) => Promise<Worker>,
  ) {}

  /** Connects and runs the worker in the background, retrying until it runs or is closed. */
  open(): void {
    if (this.closed || this.current || this.opening) return;
    this.opening = this.connect()
      .catch(() => {
        this.later();
      })
      .finally(() => {
        this.opening = undefined;
      });
  }

  /** The client whose starts are eager, while the worker polls; otherwise none. */
  get client(): Client | undefined {
    return this.current?.worker.getState() === 'RUNNING' ? this.current.client : undefined;
  }

  private later(): void {
    if (!this.closed)
      this.retry = setTimeout(() => {
        this.open();
      }, reconnectMs);
  }

  private async connect(): Promise<void> {
    quietWorkerLogs();
    const connection = await workerConnection(this.config.temporal);
    let worker: Worker;
    try {
      worker = await this.createWorker(connection);
    } catch (err) {
      await connection.close();
      throw err;
    }
    // `runUntil` shuts the worker down whenever `stop` is called, also before it is running:
    // a worker created and never run, or stopped while starting, would hold the process open.
    let stop: () => void = () => undefined;
    const stopped = new Promise<void>((resolve) => {
      stop = resolve;
    });
    const client = new Client({
      connection,
      namespace: this.config.temporal.namespace,
      dataConverter: gateDataConverter(this.config.payloadKeys),
      interceptors: tracingClientInterceptors(),
    });
    const running = worker
      .runUntil(stopped)
      .catch(() => undefined)
      .then(async () => {
        if (this.current?.worker !== worker) return; // closed on purpose
        this.current = undefined;
        await connection.close().catch(() => undefined);
        this.later();
      });
    this.current = { connection, worker, client, running, stop };
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.retry);
    await this.opening;
    const hosted = this.current;
    this.current = undefined;
    if (!hosted) return;
    hosted.stop();
    await hosted.running;
    await hosted.connection.close().catch(() => undefined);
  }
}
