import { EventEmitter } from 'node:events';
import pg from 'pg';
import { ledgerChannel } from '../store/ledger.js';

/**
 * One LISTEN connection per API process: appends notify on commit, stream readers wake at once.
 * Notifications only wake readers early; readers also re-read on a short timer, so a dropped
 * connection costs latency, never events.
 */
export class LedgerNotifier {
  private readonly emitter = new EventEmitter();
  private client: pg.Client | undefined;
  private closed = false;
  private reconnectTimer: NodeJS.Timeout | undefined;

  constructor(private readonly databaseUrl: string) {
    this.emitter.setMaxListeners(0);
  }

  start(): void {
    if (this.closed || this.client) return;
    const client = new pg.Client({ connectionString: this.databaseUrl });
    this.client = client;
    const retry = () => {
      if (this.client !== client) return;
      this.client = undefined;
      void client.end().catch(() => undefined);
      if (!this.closed)
        this.reconnectTimer = setTimeout(() => {
          this.start();
        }, 1000);
    };
    client.on('error', retry);
    client.on('end', retry);
    client.on('notification', (message) => {
      if (message.payload) this.emitter.emit(message.payload);
    });
    client
      .connect()
      .then(() => client.query(`listen ${ledgerChannel}`))
      .catch(retry);
  }

  /** Resolves when the stream is appended to, or after `ms`, whichever is first. */
  waitForAppend(streamId: string, ms: number, signal: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.emitter.off(streamId, done);
        signal.removeEventListener('abort', done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.emitter.on(streamId, done);
      signal.addEventListener('abort', done);
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.reconnectTimer);
    const client = this.client;
    this.client = undefined;
    await client?.end().catch(() => undefined);
  }
}
