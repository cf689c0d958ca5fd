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
