import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { SessionId } from '../../domain/gate/ids.js';
import { verifyLedger } from '../../application/verify-ledger.js';
import { readEvents, readStreamHead, type LedgerEvent } from '../../store/ledger.js';
import { findRunBySessionId } from '../../store/runs.js';
import type { Principal } from '../auth.js';
import { callerKey } from '../caller-slots.js';
import type { ApiContext } from '../context.js';
import { EventStreams, follow } from '../event-stream.js';
import { notFound } from '../problem.js';
import { sessionIdParam, validate } from '../validation.js';

export const sessionParams = z.object({ session_id: sessionIdParam }).strict();
const seq = z.coerce.number().int().min(0).max(Number.MAX_SAFE_INTEGER);
export const pageQuery = z
  .object({ after: seq.default(0), limit: z.coerce.number().int().min(1).max(1000).default(100) })
  .strict();
export const streamQuery = z.object({ after: seq.optional() }).strict();

/** A stream sleeps until an append wakes it; past this, it wakes to send a heartbeat. */
const idleMs = 15_000;

/** The session's runner reads its own stream; the operator reads any. */
async function authorizeRead(
  ctx: ApiContext,
  request: FastifyRequest,
  sessionId: SessionId,
): Promise<Principal> {
  const principal = await ctx.auth.principal(request);
  if (principal.kind === 'runner') {
    await ctx.auth.runner(request, sessionId);
    return principal;
  }
  if (principal.kind !== 'operator') throw notFound(`session ${sessionId}`);
  if (!(await findRunBySessionId(ctx.pool, sessionId))) throw notFound(`session ${sessionId}`);
  return principal;
}

export function eventRoutes(app: FastifyInstance, ctx: ApiContext) {
  const streams = new EventStreams(app, ctx.http.streamDrainTimeoutMs);

  app.get('/v1/sessions/:session_id/events', async (request) => {
    const { session_id } = validate(sessionParams, request.params, 'path');
    await authorizeRead(ctx, request, session_id);
    const { after, limit } = validate(pageQuery, request.query, 'query');
    const events = await readEvents(ctx.pool, session_id, after, limit);
    return { events, next_after: events.at(-1)?.seq ?? after };
  });

  app.get('/v1/sessions/:session_id/events/verify', async (request) => {
    const { session_id } = validate(sessionParams, request.params, 'path');
    await ctx.auth.operator(request);
    if (!(await findRunBySessionId(ctx.pool, session_id))) throw notFound(`session ${session_id}`);
    return verifyLedger(ctx.pool, session_id);
  });

  app.get('/v1/sessions/:session_id/events/stream', async (request, reply) => {
    const { session_id } = validate(sessionParams, request.params, 'path');
    const principal = await authorizeRead(ctx, request, session_id);
    const query = validate(streamQuery, request.query, 'query');
    const lastEventId = request.headers['last-event-id'];
    let cursor = query.after ?? 0;
    if (typeof lastEventId === 'string' && lastEventId !== '') {
      cursor = validate(
        z.object({ 'last-event-id': seq }),
        { 'last-event-id': lastEventId },
        'query',
      )['last-event-id'];
    }

    // A cursor past the ledger's end reads from its end: what is appended next, a revocation
    // among it, reaches the reader whatever it claimed to have read.
    const head = await readStreamHead(ctx.pool, session_id);
    cursor = Math.min(cursor, head?.seq ?? 0);

    const release = ctx.slots.take('streams', callerKey(principal));
    const stream = streams.start(request, reply, release);
    await follow(
      stream,
      (signal) => ctx.notifications.waitForAppend(session_id, cursor, idleMs, signal),
      async () => {
        let events: LedgerEvent[];
        try {
          events = await readEvents(ctx.pool, session_id, cursor, 500);
        } catch {
          return 'caught-up'; // PostgreSQL away: keep the stream, try again on the next tick.
        }
        for (const event of events) {
          // Written as the reader takes them: a reader that stops is dropped, never buffered for.
          await stream.send({ id: event.seq, event: event.type, data: JSON.stringify(event) });
          if (stream.signal.aborted) return 'end';
          cursor = event.seq;
          // A revoked run's token reads no more: its open stream ends with the revocation.
          if (principal.kind === 'runner' && event.type === 'run.revoked') return 'end';
        }
        return events.length === 500 ? 'more' : 'caught-up';
      },
    );
    stream.end();
  });
}
