import pg from 'pg';
import type { Pool } from '../store/pool.js';
import {
  answeredToolCalls,
  ledgerHeads,
  waitChannels,
  watchStream,
  watchToolCall,
} from '../store/queries/wait-notifications.js';
import { KeyedWaiters } from './keyed-waiters.js';

interface WaitNotificationOptions {
  /** How often one shared query re-reads what every waiter waits for (a notice may be lost). */
  recheckMs?: number;
  /** How often approvals-list streams re-read regardless (they have no cheap shared query). */
  approvalsRecheckMs?: number;
  /** How long the listening connection may take to open before it is tried again. */
  connectMs?: number;
}

const toolCallKey = (sessionId: string, toolCallId: string) =>
  JSON.stringify([sessionId, toolCallId]);

/** How long a stream's watch lasts; it is set again once less than half of it is left. */
const streamWatchMs = 10 * 60_000;

/** What a call's watch lasts past the wait it is set for. */
const toolCallWatchMarginMs = 10_000;

/** At most this many watches are remembered (beyond, a watch is set again: a write, no more). */
const rememberedWatchesAtMost = 10_000;

/**
 * Until when (this process's monotonic clock) the watches this process set last at least: each
 * was set after the time remembered, for as long, by the server's clock, so the server's lasts
 * longer. Forgotten whenever the listening connection opens again: the server may not be the one
 * the watches were written to (a failover, a restore).
 */
class RememberedWatches {
  private readonly until = new Map<string, number>();

  /** Whether `key` is watched for `ms` more at least. */
  covers(key: string, ms: number): boolean {
    const until = this.until.get(key);
    if (until === undefined) return false;
    if (until - performance.now() >= ms) return true;
    if (until <= performance.now()) this.until.delete(key);
    return false;
  }

  clear(): void {
    this.until.clear();
  }

  remember(key: string, until: number): void {
    if (this.until.size >= rememberedWatchesAtMost) {
      const oldest = this.until.keys().next();
      if (!oldest.done) this.until.delete(oldest.value);
    }
    this.until.delete(key);
    this.until.set(key, until);
  }
}

/**
 * What wakes waiting readers: one LISTEN connection per API process, fanned out in process by
 * key. A ledger stream or a tool call notifies only while a reader watches it (`watchAppends`,
 * `watchToolCall`, each followed by a read). Notices only wake readers early; one shared timer
 * re-reads every waited-for key in one query per kind, so a dropped connection costs latency,
 * never an answer, and the cost of the safety net does not grow with the number of waiters.
 */
export class WaitNotifications {
  private readonly ledger = new KeyedWaiters();
  private readonly toolCalls = new KeyedWaiters();
  private readonly approvals = new KeyedWaiters();
  private readonly watches = new RememberedWatches();
  /** The watches this process has sent and not yet had answered, by stream or call. */
  private readonly watching = new Map<string, Promise<void>>();
  private client: pg.Client | undefined;
  private closed = false;
  private reconnectTimer: NodeJS.Timeout | undefined;
  private recheckTimer: NodeJS.Timeout | undefined;
  private approvalsTimer: NodeJS.Timeout | undefined;
  private readonly recheckMs: number;
  private readonly approvalsRecheckMs: number;
  private readonly connectMs: number;

  constructor(
    private readonly databaseUrl: string,
    private readonly pool: Pool,
    {
      recheckMs = 5_000,
      approvalsRecheckMs = 30_000,
      connectMs = 5_000,
    }: WaitNotificationOptions = {},
  ) {
    this.recheckMs = recheckMs;
    this.approvalsRecheckMs = approvalsRecheckMs;
    this.connectMs = connectMs;
  }

  start(): void {
    this.listen();
    this.recheckTimer ??= setInterval(() => void this.recheck(), this.recheckMs).unref();
    this.approvalsTimer ??= setInterval(() => {
      this.approvals.wakeAll();
    }, this.approvalsRecheckMs).unref();
  }

  /**
   * Appends to the stream notify from now on, for a while (a reader calls this before each read,
   * and waits with `waitForAppend` afterwards): most calls write PostgreSQL only when less than
   * half of the last watch is left.
   */
  watchAppends(streamId: string): Promise<void> {
    return this.watch(`stream:${streamId}`, streamWatchMs / 2, streamWatchMs, (ms) =>
      watchStream(this.pool, streamId, ms),
    );
  }

  /**
   * Changes to the call's answer notify for the next `ms` at least (a reader calls this once its
   * read finds the call unanswered, reads again, and waits with `waitForToolCall` afterwards).
   */
  watchToolCall(sessionId: string, toolCallId: string, ms: number): Promise<void> {
    return this.watch(
      `call:${toolCallKey(sessionId, toolCallId)}`,
      ms,
      ms + toolCallWatchMarginMs,
      (watchMs) => watchToolCall(this.pool, sessionId, toolCallId, watchMs),
    );
  }

  /**
   * `key` watched for `coverMs` more at least: remembered, or written for `watchMs`. One watch of
   * a key in flight at a time: behind a writer holding the row, each would hold a connection
   * until the writer commits, so later readers take the one already queued (it commits before
   * their read, as their own would).
   */
  private async watch(
    key: string,
    coverMs: number,
    watchMs: number,
    write: (watchMs: number) => Promise<boolean>,
  ): Promise<void> {
    for (let queued = this.watching.get(key); queued; queued = this.watching.get(key)) {
      if (this.watches.covers(key, coverMs)) return;
      await queued;
    }
    if (this.watches.covers(key, coverMs)) return;
    const from = performance.now();
    const written = write(watchMs).then((found) => {
      if (found) this.watches.remember(key, from + watchMs);
    });
    this.watching.set(key, written);
    try {
      await written;
    } finally {
      if (this.watching.get(key) === written) this.watching.delete(key);
    }
  }

  /** Until the stream's head passes `since`, or `ms`, or the signal. */
  waitForAppend(streamId: string, since: number, ms: number, signal: AbortSignal): Promise<void> {
    return this.ledger.wait(streamId, ms, signal, since);
  }

  /** Until the call's recorded answer changes, or `ms`, or the signal. */
  waitForToolCall(
    sessionId: string,
    toolCallId: string,
    ms: number,
    signal: AbortSignal,
  ): Promise<void> {
    return this.toolCalls.wait(toolCallKey(sessionId, toolCallId), ms, signal);
  }

  /** Until the workspace's approvals or members change, or `ms`, or the signal. */
  waitForApprovals(workspaceId: string, ms: number, signal: AbortSignal): Promise<void> {
    return this.approvals.wait(workspaceId, ms, signal);
  }

  /** How many readers wait now, for metrics and tests. */
  get waiting(): number {
    return this.ledger.size + this.toolCalls.size + this.approvals.size;
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.reconnectTimer);
    clearInterval(this.recheckTimer);
    clearInterval(this.approvalsTimer);
    const client = this.client;
    this.client = undefined;
    await client?.end().catch(() => undefined);
  }

  private listen(): void {
    if (this.closed || this.client) return;
    // Bounded and kept alive, so a server that froze or a network that dropped is noticed.
    const client = new pg.Client({
      connectionString: this.databaseUrl,
      connectionTimeoutMillis: this.connectMs,
      query_timeout: this.connectMs,
      keepAlive: true,
    });
    this.client = client;
    const retry = () => {
      if (this.client !== client) return;
      this.client = undefined;
      void client.end().catch(() => undefined);
      if (!this.closed)
        this.reconnectTimer = setTimeout(() => {
          this.listen();
        }, 1000);
    };
    client.on('error', retry);
    client.on('end', retry);
    client.on('notification', (message) => {
      this.dispatch(message.channel, message.payload ?? '');
    });
    client
      .connect()
      .then(async () => {
        for (const channel of Object.values(waitChannels)) await client.query(`listen ${channel}`);
        // Notices sent while not listening are lost: every waiter reads again (a stream's reader
        // watches again as it reads; the watches written may not be on this server any more).
        this.watches.clear();
        this.wakeEveryone();
      })
      .catch(retry);
  }

  private dispatch(channel: string, payload: string): void {
    if (channel === waitChannels.ledger) this.ledger.wake(payload);
    else if (channel === waitChannels.approvals) this.approvals.wake(payload);
    else if (channel === waitChannels.toolCall) {
      const ids: unknown = JSON.parse(payload);
      if (Array.isArray(ids) && typeof ids[0] === 'string' && typeof ids[1] === 'string')
        this.toolCalls.wake(toolCallKey(ids[0], ids[1]));
    }
  }

  private wakeEveryone(): void {
    this.ledger.wakeAll();
    this.toolCalls.wakeAll();
    this.approvals.wakeAll();
  }

  /** The safety net: one query per kind for every key waited on, whatever their number. */
  private async recheck(): Promise<void> {
    try {
      const streams = this.ledger.keys();
      if (streams.length > 0)
        for (const head of await ledgerHeads(this.pool, streams))
          this.ledger.wake(head.stream_id, head.head_seq);
      const calls = this.toolCalls.keys().map((key) => JSON.parse(key) as [string, string]);
      if (calls.length > 0)
        for (const [sessionId, toolCallId] of await answeredToolCalls(this.pool, calls))
          this.toolCalls.wake(toolCallKey(sessionId, toolCallId));
    } catch {
      // PostgreSQL away: the next tick tries again; readers still end at their deadlines.
    }
  }
}
