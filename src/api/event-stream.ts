import type { ServerResponse } from 'node:http';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

const heartbeatMs = 15_000;

/** One open Server-Sent Events response. */
export interface EventStream {
  /** Aborts when the client goes away or the API closes. */
  signal: AbortSignal;
  send(event: { id?: string | number; event: string; data: string }): void;
  /** A comment line when nothing was sent for a while, so proxies keep the stream open. */
  heartbeatIfIdle(): void;
  end(): void;
}

/**
 * Takes over replies as text/event-stream. Streams are tracked so that closing the API ends
 * them instead of waiting on readers.
 */
export class EventStreams {
  private readonly open = new Set<AbortController>();

  constructor(app: FastifyInstance) {
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
    return {
      signal: abort.signal,
      send: ({ id, event, data }) => {
        out.write(`${id === undefined ? '' : `id: ${id}\n`}event: ${event}\ndata: ${data}\n\n`);
        lastWrite = Date.now();
      },
      heartbeatIfIdle: () => {
        if (Date.now() - lastWrite < heartbeatMs) return;
        out.write(': heartbeat\n\n');
        lastWrite = Date.now();
      },
      end: () => {
        this.open.delete(abort);
        release();
        out.end();
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
      stream.heartbeatIfIdle();
      await woken;
    } finally {
      stream.signal.removeEventListener('abort', endRound);
      endRound();
    }
  }
}
