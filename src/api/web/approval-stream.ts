import type { FastifyInstance } from 'fastify';
import { visiblePendingKeys } from '../../store/queries/approvals.js';
import { callerKey } from '../caller-slots.js';
import type { ApiContext } from '../context.js';
import { EventStreams, follow } from '../event-stream.js';
import { media } from '../route-schemas.js';
import { pendingVersion } from './approval-list-page.js';
import { webFormTags as tags } from './layout.js';
import { visitorOf } from './admission.js';
import { sessionMember } from './session.js';

/**
 * The pending set is read again when PostgreSQL says the workspace's approvals or members
 * changed (or a sign-out), and at the latest after this, so a sign-in that runs out ends the
 * stream in time.
 */
const idleMs = 15_000;

/**
 * `GET /approvals/stream`: Server-Sent Events for the list page. `pending` carries the version
 * of the member's pending set, sent on connect and whenever it changes; `signed-out` ends the
 * stream when the session expires, is signed out, or the member is suspended.
 */
export function approvalStreamRoute(web: FastifyInstance, ctx: ApiContext) {
  const streams = new EventStreams(web, ctx.http.streamDrainTimeoutMs);

  const route = {
    config: {
      caller: 'browser' as const,
      web: { signedOut: 'your sign-in has ended', renews: false as const },
    },
    // The stream is the page's doing, not the person's: it never renews the session.
    schema: {
      operationId: 'approvalsStream',
      summary: 'Wakes the list page when approvals change (Server-Sent Events)',
      tags,
      response: { 200: media('an event stream', 'text/event-stream') },
    },
  };
  web.get('/approvals/stream', route, async (request, reply) => {
    const session = visitorOf(request);

    const release = ctx.slots.take('streams', callerKey({ kind: 'user', member: session.member }));
    const stream = streams.start(request, reply, release);
    let sent: string | undefined;
    await follow(
      stream,
      (signal) => ctx.notifications.waitForApprovals(session.member.workspace_id, idleMs, signal),
      async () => {
        try {
          // The session is checked on every wake-up (a suspension or sign-out notifies at once),
          // without renewing it: a page left open runs out at its idle limit.
          const member = await sessionMember(ctx, session.sessionId);
          if (!member) {
            await stream.send({ event: 'signed-out', data: '' });
            return 'end';
          }
          const version = pendingVersion(await visiblePendingKeys(ctx.pool, member));
          if (version !== sent) {
            await stream.send({ event: 'pending', data: version });
            sent = version;
          }
        } catch {
          // PostgreSQL away: keep the stream open and read again on the next tick.
        }
        return 'caught-up';
      },
    );
    stream.end();
  });
}
