import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { SessionId } from '../../domain/gate/ids.js';
import { verifyLedger } from '../../application/verify-ledger.js';
import { readEvents, readStreamHead, type LedgerEvent } from '../../store/queries/ledger.js';
import { findRunBySessionId } from '../../store/queries/runs.js';
import type { Principal } from '../auth.js';
import { callerKey } from '../caller-slots.js';
import { callerPrincipal } from '../callers.js';
import type { ApiContext } from '../context.js';
import { EventStreams, follow } from '../event-stream.js';
import { notFound } from '../problem.js';
import { anyObject, json, media } from '../route-schemas.js';
import { sessionIdParam } from '../validation.js';

const sessionParams = z.object({ session_id: sessionIdParam }).strict();
const seq = z.coerce.number().int().min(0).max(Number.MAX_SAFE_INTEGER);
const pageQuery = z
  .object({ after: seq.default(0), limit: z.coerce.number().int().min(1).max(1000).default(100) })
  .strict();
const streamQuery = z.object({ after: seq.optional() }).strict();
/**
 * `Last-Event-ID`, as an EventSource sends it when it reconnects: the last seq it read. Other
 * headers are not copied: Fastify lays the parsed value over the request's own headers.
 */
const streamHeaders = z.object({
  'last-event-id': z.union([z.literal(''), seq]).optional(),
});

/** A stream sleeps until an append wakes it; past this, it wakes to send a heartbeat. */
const idleMs = 15_000;

const eventAnswer = z.object({
  seq: z.number().int(),
  type: z.string(),
  at: z.string(),
  data: anyObject,
  prev_hash: z.string(),
  hash: z.string(),
});
const eventsPageAnswer = z.object({
  events: z.array(eventAnswer),
  next_after: z.number().int(),
});
const head = z.object({ seq: z.number().int(), hash: z.string() });
/** The chain's verdict: `ok`, or where it first broke and why. */
const verdictAnswer = z.object({
  ok: z.boolean(),
  events: z.number().int(),
  first_broken_seq: z.number().int().optional(),
  problem: z.string().optional(),
  head: head.nullable(),
});

/** The operator reads any session that exists; a runner its own (matched by its caller check). */
async function requireSession(ctx: ApiContext, principal: Principal, sessionId: SessionId) {
  if (principal.kind === 'runner') return;
  if (!(await findRunBySessionId(ctx.pool, sessionId))) throw notFound(`session ${sessionId}`);
}

const tags = ['ledger'];

export function eventRoutes(server: FastifyInstance, ctx: ApiContext) {
  const app = server.withTypeProvider<ZodTypeProvider>();
  const streams = new EventStreams(app, ctx.http.streamDrainTimeoutMs);

  app.get(
    '/v1/sessions/:session_id/events',
    {
      config: { caller: 'reader' },
      schema: {
        operationId: 'listEvents',
        summary: "A page of the session's ledger",
        tags,
        params: sessionParams,
        querystring: pageQuery,
        response: { 200: json('events after `after`', eventsPageAnswer) },
      },
    },
    async (request) => {
      const { session_id } = request.params;
      await requireSession(ctx, callerPrincipal(request), session_id);
      const { after, limit } = request.query;
      const events = await readEvents(ctx.pool, session_id, after, limit);
      return { events, next_after: events.at(-1)?.seq ?? after };
    },
  );

  app.get(
    '/v1/sessions/:session_id/events/verify',
    {
      config: { caller: 'operator' },
      schema: {
        operationId: 'verifyEvents',
        summary: "Check the session ledger's hash chain",
        tags,
        params: sessionParams,
        response: { 200: json('the verdict', verdictAnswer) },
      },
    },
    async (request) => {
      const { session_id } = request.params;
      if (!(await findRunBySessionId(ctx.pool, session_id)))
        throw notFound(`session ${session_id}`);
      return verifyLedger(ctx.pool, session_id);
    },
  );

  app.get(
    '/v1/sessions/:session_id/events/stream',
    {
      config: { caller: 'reader' },
      schema: {
        operationId: 'streamEvents',
        summary: 'The ledger as Server-Sent Events; resume with Last-Event-ID',
        tags,
        params: sessionParams,
        querystring: streamQuery,
        headers: streamHeaders,
        response: { 200: media('an event stream', 'text/event-stream') },
      },
    },
    async (request, reply) => {
      const { session_id } = request.params;
      const principal = callerPrincipal(request);
      await requireSession(ctx, principal, session_id);
      const lastEventId = request.headers['last-event-id'];
      let cursor = typeof lastEventId === 'number' ? lastEventId : (request.query.after ?? 0);

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
            // Watched before the read: what is appended after it notifies.
            await ctx.notifications.watchAppends(session_id);
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
    },
  );
}
