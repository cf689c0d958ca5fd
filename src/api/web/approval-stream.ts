import type { FastifyInstance } from 'fastify';
import { listPendingApprovalsFor } from '../../store/approvals.js';
import type { ApiContext } from '../context.js';
import { Problem } from '../problem.js';
import { pendingVersion } from './approval-list-page.js';
import { findWebSessionMember, signedIn } from './session.js';

/**
 * The pending set is re-read every second. A member's set changes through approvals in any
 * session of the workspace and through their own role or status, so there is no single ledger
 * stream to listen to; a one-second read of an indexed query is cheap and never misses a change.
 */
const recheckMs = 1_000;
const heartbeatMs = 15_000;

function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done);
  });
}

/**
 * `GET /approvals/stream`: Server-Sent Events for the list page. `pending` carries the version
 * of the member's pending set, sent on connect and whenever it changes; `signed-out` ends the
 * stream when the session expires, is signed out, or the member is suspended.
 */
export function approvalStreamRoute(web: FastifyInstance, ctx: ApiContext) {
  const openStreams = new Set<AbortController>();
  web.addHook('preClose', (done) => {
    for (const stream of openStreams) stream.abort();
    done();
  });

  web.get('/approvals/stream', async (request, reply) => {
    const session = await signedIn(ctx, request);
    if (!session) throw new Problem(401, 'your sign-in has ended');

    reply.hijack();
    const out = reply.raw;
    out.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-store',
      connection: 'keep-alive',
      'x-accel-buffering': 'no',
    });
    out.write(': stream open\n\n');
    const abort = new AbortController();
    openStreams.add(abort);
    request.raw.on('close', () => {
      abort.abort();
    });

    let sent: string | undefined;
    let lastWrite = Date.now();
    while (!abort.signal.aborted) {
      try {
        // The session is checked on every tick, so a suspension ends the stream within a second.
        const member = await findWebSessionMember(ctx.pool, session.sessionId);
        if (!member) {
          out.write('event: signed-out\ndata: \n\n');
          break;
        }
        const version = pendingVersion(await listPendingApprovalsFor(ctx.pool, member));
        if (version !== sent) {
          out.write(`event: pending\ndata: ${version}\n\n`);
          sent = version;
          lastWrite = Date.now();
        }
      } catch {
        // PostgreSQL away: keep the stream open and read again on the next tick.
      }
      if (Date.now() - lastWrite >= heartbeatMs) {
        out.write(': heartbeat\n\n');
        lastWrite = Date.now();
      }
      await pause(recheckMs, abort.signal);
    }
    openStreams.delete(abort);
    out.end();
  });
}
