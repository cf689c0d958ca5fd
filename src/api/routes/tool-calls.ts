import type { FastifyInstance, FastifyReply } from 'fastify';
import { z } from 'zod';
import { MAX_ARGUMENT_DEPTH } from '../../domain/argument-validation.js';
import { digestOf } from '../../domain/digest.js';
import { jsonDepthWithin } from '../../domain/json-depth.js';
import { inReadingOrder, type GateRequest, type ToolCallState } from '../../domain/gate.js';
import { toolDigestPattern } from '../../domain/gate/reported-drift.js';
import { payload, redact } from '../../domain/redaction.js';
import { appendEvent } from '../../store/ledger.js';
import { withTransaction } from '../../store/pool.js';
import { findToolCall, insertToolCall, stateOf } from '../../store/tool-calls.js';
import type { ApiContext } from '../context.js';
import { askGate } from '../gate-client.js';
import { Problem, notFound } from '../problem.js';
import { validate } from '../validation.js';
import { externalId } from './runs.js';

const callParams = z.object({ session_id: externalId, tool_call_id: externalId }).strict();
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

function answerWith(reply: FastifyReply, ctx: ApiContext, state: ToolCallState) {
  if (state.status === 'decided') {
    ctx.metrics.decisions.inc({ decision: state.decision, source: state.source ?? '' });
    return reply.code(200).send(inReadingOrder(state));
  }
  return reply.code(202).send(inReadingOrder(state));
}

export function toolCallRoutes(app: FastifyInstance, ctx: ApiContext) {
  app.put('/v1/sessions/:session_id/tool-calls/:tool_call_id', async (request, reply) => {
    const params = validate(callParams, request.params, 'path');
    const run = await ctx.auth.runner(request, params.session_id);
    const body = validate(callBody, request.body, 'body');
    const gateRequest: GateRequest = {
      run_id: run.id,
      session_id: params.session_id,
      tool_call_id: params.tool_call_id,
      tool: body.tool,
      arguments: body.arguments,
      execute: body.execute ?? false,
      ...(body.observed_digest !== undefined && { observed_digest: body.observed_digest }),
      approval_recheck_s: ctx.approvalRecheckS,
      stage_activities: ctx.stageActivities,
    };
    // A report of what the runner observed is part of the request: sent again, it must be the same.
    const requestDigest = digestOf({
      tool: body.tool,
      arguments: body.arguments,
      execute: gateRequest.execute,
      ...(body.observed_digest !== undefined && { observed_digest: body.observed_digest }),
    });
    const row = await withTransaction(ctx.pool, async (tx) => {
      const { row, created } = await insertToolCall(tx, {
        sessionId: params.session_id,
        toolCallId: params.tool_call_id,
        runId: run.id,
        tool: body.tool,
        requestDigest,
        awaitsResult:
          gateRequest.execute &&
          run.toolset.find((t) => t.name === body.tool)?.class === 'brokered',
      });
      if (created) {
        await appendEvent(
          tx,
          params.session_id,
          redact('tool.requested', {
            tool_call_id: params.tool_call_id,
            tool: body.tool,
            execute: gateRequest.execute,
            arguments: payload(body.arguments),
          }),
        );
      }
      return row;
    });
    if (row.request_digest !== requestDigest) {
      throw new Problem(
        409,
        `tool call ${params.tool_call_id} was already made with a different request`,
      );
    }
    // A final recorded decision answers at once; anything else goes to the gate, which re-attaches.
    const recorded = stateOf(row);
    if (recorded.status === 'decided') return answerWith(reply, ctx, recorded);
    const answer = await askGate(ctx.temporal, ctx.taskQueue, gateRequest, ctx.gateWaitMs);
    if (answer !== 'closed') return answerWith(reply, ctx, answer);
    // A closed gate is never started again: its decision is in the record.
    const current = await findToolCall(ctx.pool, row.session_id, row.tool_call_id);
    const final = current && stateOf(current);
    if (final?.status !== 'decided') {
      throw new Problem(503, 'the gate closed without a recorded answer; send the call again');
    }
    return answerWith(reply, ctx, final);
  });

  app.get('/v1/sessions/:session_id/tool-calls/:tool_call_id', async (request, reply) => {
    const params = validate(callParams, request.params, 'path');
    await ctx.auth.runner(request, params.session_id);
    const { wait = 0 } = validate(waitQuery, request.query, 'query');
    const deadline = Date.now() + wait * 1000;
    for (;;) {
      const row = await findToolCall(ctx.pool, params.session_id, params.tool_call_id);
      if (!row) throw notFound(`tool call ${params.tool_call_id}`);
      const state = stateOf(row);
      // A runner that hung up gets no more polling on its behalf.
      if (state.status === 'decided' || Date.now() >= deadline || request.socket.destroyed)
        return answerWith(reply, ctx, state);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  });
}
