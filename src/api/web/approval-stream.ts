import type { FastifyInstance } from 'fastify';
import { listPendingApprovalsFor } from '../../store/approvals.js';
import type { ApiContext } from '../context.js';
import { EventStreams } from '../event-stream.js';
import { Problem } from '../problem.js';
import { pendingVersion } from './approval-list-page.js';
import { sessionMember, signedIn } from './session.js';

/**
 * The pending set is re-read every second. A member's set changes through approvals in any
 * session of the workspace and through their own role or status, so there is no single ledger
 * stream to listen to; a one-second read of an indexed query is cheap and never misses a change.
 */
const recheckMs = 1_000;

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
  const streams = new EventStreams(web);

  web.get('/approvals/stream', async (request, reply) => {
    const session = await signedIn(ctx, request);
    if (!session) throw new Problem(401, 'your sign-in has ended');

    const stream = streams.start(request, reply);
    let sent: string | undefined;
    while (!stream.signal.aborted) {
      try {
        // The session is checked on every tick, so a suspension ends the stream within a second.
        const member = await sessionMember(ctx, session.sessionId);
        if (!member) {
          stream.send({ event: 'signed-out', data: '' });
          break;
        }
        const version = pendingVersion(await listPendingApprovalsFor(ctx.pool, member));
        if (version !== sent) {
          stream.send({ event: 'pending', data: version });
          sent = version;
        }
      } catch {
        // PostgreSQL away: keep the stream open and read again on the next tick.
      }
      stream.heartbeatIfIdle();
      await pause(recheckMs, stream.signal);
    }
    stream.end();
  });
}
