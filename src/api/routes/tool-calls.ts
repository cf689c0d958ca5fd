import type { FastifyInstance, FastifyReply } from 'fastify';
import { z } from 'zod';
import { awaitRunnerAnswer } from '../../application/await-tool-call.js';
import { explainToolCall } from '../../application/explain-decision.js';
import { submitToolCall } from '../../application/submit-tool-call.js';
import { inReadingOrder, type ToolCallState } from '../../domain/gate/vocabulary.js';
import { MAX_ARGUMENT_DEPTH } from '../../domain/tools/argument-validation.js';
import { jsonDepthWithin } from '../../domain/tools/json-depth.js';
import { toolDigestPattern } from '../../domain/gate/reported-drift.js';
import { annotateSpan } from '../../telemetry/tracing.js';
import { answerAttributes } from '../../telemetry/gate-attributes.js';
import { callerKey } from '../caller-slots.js';
import type { ApiContext } from '../context.js';
import { sessionIdParam, toolCallIdParam, validate } from '../validation.js';

export const callParams = z
  .object({ session_id: sessionIdParam, tool_call_id: toolCallIdParam })
  .strict();
export const callBody = z
  .object({
    tool: z.string().min(1).max(256),
    arguments: z
      .record(z.string(), z.unknown())
      .refine((args) => jsonDepthWithin(args, MAX_ARGUMENT_DEPTH), {
        error: `arguments may nest at most ${MAX_ARGUMENT_DEPTH} levels deep`,
      }),
    execute: z.boolean().optional(),
    observed_digest: z
      .string()
      .regex(toolDigestPattern, 'a digest is "sha256:" and 64 lower-case hex digits')
      .nullable()
      .optional(),
  })
  .strict();
export const waitQuery = z.object({ wait: z.coerce.number().min(0).max(60).optional() }).strict();

/** 200 with a decision, 202 while the call is pending or still evaluating. */
function answerWith(reply: FastifyReply, ctx: ApiContext, state: ToolCallState) {
  annotateSpan(answerAttributes(state));
  if (state.status === 'decided') {
    ctx.metrics.decisions.inc({ decision: state.decision, source: state.source ?? '' });
    return reply.code(200).send(inReadingOrder(state));
  }
  return reply.code(202).send(inReadingOrder(state));
}

export function toolCallRoutes(app: FastifyInstance, ctx: ApiContext) {
  const write = { config: { holds: 'writes' } } as const;
  app.put('/v1/sessions/:session_id/tool-calls/:tool_call_id', write, async (request, reply) => {
    const params = validate(callParams, request.params, 'path');
    const run = await ctx.auth.runner(request, params.session_id);
    const body = validate(callBody, request.body, 'body');
    annotateSpan({
      'gate.session_id': params.session_id,
      'gate.tool_call_id': params.tool_call_id,
      'gate.tool': body.tool,
    });
    const state = await submitToolCall(
      ctx,
      run,
      params.tool_call_id,
      {
        tool: body.tool,
        arguments: body.arguments,
        execute: body.execute ?? false,
        // What the runner observed is part of the request: sent again, it must be the same.
        ...(body.observed_digest !== undefined && { observed_digest: body.observed_digest }),
      },
      request.id,
    );
    return answerWith(reply, ctx, state);
  });

  app.get('/v1/sessions/:session_id/tool-calls/:tool_call_id', async (request, reply) => {
    const params = validate(callParams, request.params, 'path');
    const run = await ctx.auth.runner(request, params.session_id);
    const { wait = 0 } = validate(waitQuery, request.query, 'query');
    // Each open wait holds one of the runner's slots; past the cap, a 429.
    const release =
      wait > 0 ? ctx.slots.take('waits', callerKey({ kind: 'runner', run })) : () => undefined;
    // A runner that hung up is waited for no longer.
    const gone = new AbortController();
    const hungUp = () => {
      gone.abort();
    };
    reply.raw.on('close', hungUp);
    try {
      const state = await awaitRunnerAnswer(
        ctx,
        run,
        params.tool_call_id,
        wait * 1000,
        gone.signal,
      );
      return await answerWith(reply, ctx, state);
    } finally {
      reply.raw.off('close', hungUp);
      release();
    }
  });

  app.get('/v1/sessions/:session_id/tool-calls/:tool_call_id/explain', async (request) => {
    const viewer = await ctx.auth.operatorOrAdmin(request);
    const params = validate(callParams, request.params, 'path');
    return explainToolCall(ctx.pool, params.session_id, params.tool_call_id, viewer);
  });
}
