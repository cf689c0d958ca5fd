import type { FastifyInstance, FastifyReply } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { denySources, type ToolCallState } from '../../domain/gate/vocabulary.js';
import { MAX_ARGUMENT_DEPTH } from '../../domain/tools/argument-validation.js';
import { jsonDepthWithin } from '../../domain/tools/json-depth.js';
import { toolDigestPattern } from '../../domain/gate/reported-drift.js';
import { annotateSpan } from '../../telemetry/tracing.js';
import { answerAttributes, toolAttributes } from '../../telemetry/gate-attributes.js';
import { callerKey } from '../caller-slots.js';
import { callerAdmin, callerRun } from '../callers.js';
import type { ApiContext } from '../context.js';
import { anyObject, json } from '../route-schemas.js';
import { sessionIdParam, toolCallIdParam } from '../validation.js';
import { frozenTool } from '../../domain/tools/tools.js';

const callParams = z.object({ session_id: sessionIdParam, tool_call_id: toolCallIdParam }).strict();
const callBody = z
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
const waitQuery = z.object({ wait: z.coerce.number().min(0).max(60).optional() }).strict();

/**
 * A tool call's answer: decided (200), or pending an approval or still evaluating (202). Its
 * fields are written in this order whatever order PostgreSQL's jsonb kept them in.
 */
export const toolCallAnswer = z.object({
  status: z.enum(['decided', 'pending_approval', 'evaluating']),
  decision: z.enum(['allow', 'deny']).optional(),
  source: z.enum(denySources).optional(),
  reason: z.string().optional(),
  rule_id: z.string().nullable().optional(),
  render: z.literal('tool_error').optional(),
  approval: z.object({ url: z.string(), expires_at: z.string() }).optional(),
  /** For an allowed brokered call with `execute`: the MCP CallToolResult. */
  result: anyObject.optional(),
});

/** Each stage's verdict on one call and what it looked at, from the record. */
const explanationAnswer = z.object({
  session_id: z.string(),
  tool_call_id: z.string(),
  tool: z.string(),
  status: z.enum(['evaluating', 'pending_approval', 'decided']),
  decision: z.enum(['allow', 'deny']).nullable(),
  source: z.enum(denySources).nullable(),
  rule_id: z.string().nullable(),
  /**
   * The digest of the request the runner sent (tool, arguments, execute): only for a caller who
   * may read the call's arguments; `arguments_hidden` otherwise.
   */
  request_digest: z.string().optional(),
  arguments_hidden: z.literal(true).optional(),
  stages: z.array(z.object({ stage: z.string(), verdict: z.string(), looked_at: anyObject })),
});

/** 200 with a decision, 202 while the call is pending or still evaluating. */
function answerWith(reply: FastifyReply, ctx: ApiContext, state: ToolCallState) {
  annotateSpan(answerAttributes(state));
  if (state.status === 'decided') {
    ctx.metrics.decisions.inc({ decision: state.decision, source: state.source ?? '' });
    return reply.code(200).send(state);
  }
  return reply.code(202).send(state);
}

const tags = ['gate'];
const config = { caller: 'runner' } as const;

export function toolCallRoutes(server: FastifyInstance, ctx: ApiContext) {
  const app = server.withTypeProvider<ZodTypeProvider>();

  app.put(
    '/v1/sessions/:session_id/tool-calls/:tool_call_id',
    {
      config: { ...config, holds: 'writes' },
      schema: {
        operationId: 'submitToolCall',
        summary: 'Ask the gate about one tool call (idempotent by the two ids)',
        tags,
        params: callParams,
        body: callBody,
        response: {
          200: json('decided', toolCallAnswer),
          202: json('pending an approval, or still evaluating', toolCallAnswer),
        },
      },
    },
    async (request, reply) => {
      const { body } = request;
      const run = callerRun(request);
      annotateSpan({
        'gate.session_id': request.params.session_id,
        'gate.tool_call_id': request.params.tool_call_id,
        ...toolAttributes(body.tool, frozenTool(run.toolset, body.tool) !== undefined),
      });
      const state = await ctx.toolCalls.submit(
        run,
        request.params.tool_call_id,
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
    },
  );

  app.get(
    '/v1/sessions/:session_id/tool-calls/:tool_call_id',
    {
      config,
      schema: {
        operationId: 'getToolCall',
        summary: "A call's state; waits up to `wait` seconds for a pending one",
        tags,
        params: callParams,
        querystring: waitQuery,
        response: {
          200: json('decided', toolCallAnswer),
          202: json('still pending', toolCallAnswer),
        },
      },
    },
    async (request, reply) => {
      const run = callerRun(request);
      const { wait = 0 } = request.query;
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
        const state = await ctx.toolCalls.answer(
          run,
          request.params.tool_call_id,
          wait * 1000,
          gone.signal,
        );
        return await answerWith(reply, ctx, state);
      } finally {
        reply.raw.off('close', hungUp);
        release();
      }
    },
  );

  app.get(
    '/v1/sessions/:session_id/tool-calls/:tool_call_id/explain',
    {
      config: { caller: 'admin' },
      schema: {
        operationId: 'explainToolCall',
        summary: "Each stage's verdict on a call and what it looked at, from the record",
        tags: ['operations'],
        params: callParams,
        response: { 200: json('the explanation', explanationAnswer) },
      },
    },
    async (request) =>
      ctx.toolCalls.explain(
        request.params.session_id,
        request.params.tool_call_id,
        callerAdmin(request),
      ),
  );
}
