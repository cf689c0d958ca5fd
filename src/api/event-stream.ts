import type { ServerResponse } from 'node:http';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

const heartbeatMs = 15_000;

/** One open Server-Sent Events response. */
export interface EventStream {
  /** Aborts when the client goes away, the API closes, or the reader stopped taking events. */
  signal: AbortSignal;
  /**
   * Writes one event. Resolves once the reader's socket can take more: at once, or when what is
   * buffered has drained; a reader that takes nothing for the drain bound is dropped (the stream
   * closes, the signal aborts) rather than buffered for.
   */
  send(event: { id?: string | number; event: string; data: string }): Promise<void>;
  /** A comment line when nothing was sent for a while, so proxies keep the stream open. */
  heartbeatIfIdle(): Promise<void>;
  end(): void;
}

/** Resolves true when `out` drains; false when it closes, `signal` aborts or `ms` pass first. */
function drained(out: ServerResponse, ms: number, signal: AbortSignal): Promise<boolean> {
  return new Promise((resolve) => {
    const settle = (ok: boolean) => {
      clearTimeout(timer);
      out.off('drain', onDrain);
      out.off('close', onGone);
      signal.removeEventListener('abort', onGone);
      resolve(ok);
    };
    const onDrain = () => {
      settle(true);
    };
    const onGone = () => {
      settle(false);
    };
    const timer = setTimeout(onGone, ms);
    out.on('drain', onDrain);
    out.on('close', onGone);
    signal.addEventListener('abort', onGone);
  });
}

/**
 * Takes over replies as text/event-stream. Streams are tracked so that closing the API ends
 * them instead of waiting on readers. Each writes only while its socket takes more: what one
 * reader holds buffered is bounded by the socket's high-water mark and one event, whatever the
 * ledger's length, and a reader that takes nothing for `drainTimeoutMs` is dropped (it resumes
 * from Last-Event-ID, losing nothing).
 */
export class EventStreams {
  private readonly open = new Set<AbortController>();

  constructor(
    app: FastifyInstance,
    private readonly drainTimeoutMs: number,
  ) {
    app.addHook('preClose', (done) => {
      for (const stream of this.open) stream.abort();
      done();
    });
  }

  /** `release` runs once when the stream ends, however it ends. */
  start(
    request: FastifyRequest,
    reply: FastifyReply,
    release: () => void = () => undefined,
  ): EventStream {
    reply.hijack();
    const out: ServerResponse = reply.raw;
    out.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-store',
      connection: 'keep-alive',
      'x-accel-buffering': 'no',
    });
    out.write(': stream open\n\n');
    const abort = new AbortController();
    this.open.add(abort);
    out.on('close', () => {
      abort.abort();
      this.open.delete(abort);
      release();
    });
    let lastWrite = Date.now();
    const write = async (text: string) => {
      if (abort.signal.aborted) return;
      lastWrite = Date.now();
      if (out.write(text)) return;
      if (!(await drained(out, this.drainTimeoutMs, abort.signal))) out.destroy();
    };
    return {
      signal: abort.signal,
      send: ({ id, event, data }) =>
        write(`${id === undefined ? '' : `id: ${id}\n`}event: ${event}\ndata: ${data}\n\n`),
      heartbeatIfIdle: async () => {
        if (Date.now() - lastWrite >= heartbeatMs) await write(': heartbeat\n\n');
      },
      end: () => {
        this.open.delete(abort);
        release();
        out.end();
        // What is still buffered gets the same bound as any write: then the socket goes.
        if (out.writableFinished) return;
        const timer = setTimeout(() => out.destroy(), this.drainTimeoutMs).unref();
        out.once('finish', () => {
          clearTimeout(timer);
        });
      },
    };
  }
}

/** What one read of a followed stream found. */
export type FollowStep = 'caught-up' | 'more' | 'end';

/**
 * Sends what `read` finds on every wake-up until the stream ends: `read` answers `more` to be
 * called again at once, `end` to stop. The next wake-up is listened for before each read, so a
 * notice that lands while reading wakes the loop again at once instead of being lost until the
 * next re-check (seconds later).
 */
export async function follow(
  stream: EventStream,
  listen: (signal: AbortSignal) => Promise<void>,
  read: () => Promise<FollowStep>,
): Promise<void> {
  while (!stream.signal.aborted) {
    const round = new AbortController();
    const endRound = () => {
      round.abort();
    };
    stream.signal.addEventListener('abort', endRound);
    const woken = listen(round.signal);
    try {
      const step = await read();
      if (step === 'end') return;
      if (step === 'more') continue;
      await stream.heartbeatIfIdle();
      await woken;
    } finally {
      stream.signal.removeEventListener('abort', endRound);
      endRound();
    }
  }
}
