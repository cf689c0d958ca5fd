import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { digestOf } from '../../domain/digest.js';
import { maxOutputTokensLimit, modelId } from '../../domain/budget/messages-request.js';
import {
  inputTokenBound,
  modelInputSchema,
  thinkingDigests,
} from '../../domain/input-token-bound.js';
import { findThinkingOrigins } from '../../store/model-thinking-blocks.js';
import {
  admitModelRequest,
  reconcileModelRequest,
  type ReservationRow,
  type UsageRow,
} from '../../store/budget.js';
import type { ApiContext } from '../context.js';
import { Problem, badInput, notFound, type FieldError } from '../problem.js';
import { validate } from '../validation.js';
import { externalId } from './runs.js';

const maxReportedTokens = 1_000_000_000;

const sessionParams = z.object({ session_id: externalId }).strict();
const requestParams = z.object({ session_id: externalId, request_id: externalId }).strict();
const admissionBody = z
  .object({
    request_id: externalId,
    model: modelId,
    max_output_tokens: z.number().int().min(1).max(maxOutputTokensLimit),
    input: modelInputSchema,
  })
  .strict();
const tokenCount = z.number().int().min(0).max(maxReportedTokens);
const usageBody = z.object({ input_tokens: tokenCount, output_tokens: tokenCount }).strict();

export const budgetExhaustedType = 'https://fluidbox.dev/problems/budget-exhausted';

/** A request bigger than the whole allowance could never be admitted: that is bad input. */
function refuseWhatCanNeverFit(maxTokens: number, maxOutputTokens: number, inputBound: number) {
  const errors: FieldError[] = [];
  if (inputBound > maxTokens) {
    errors.push({
      path: 'body.input',
      message: `may take up to ${inputBound} input tokens, more than the run's whole allowance of ${maxTokens}`,
    });
  }
  if (maxOutputTokens > maxTokens) {
    errors.push({
      path: 'body.max_output_tokens',
      message: `is more than the run's whole allowance of ${maxTokens}`,
    });
  }
  if (errors.length === 0 && inputBound + maxOutputTokens > maxTokens) {
    const message = `with an input bound of ${inputBound} tokens, max_output_tokens ${maxOutputTokens} books more than the run's whole allowance of ${maxTokens}`;
    errors.push({ path: 'body.max_output_tokens', message }, { path: 'body.input', message });
  }
  if (errors.length > 0) {
    throw badInput(
      `this model request can never fit the run's allowance of ${maxTokens} tokens`,
      errors,
    );
  }
}

/** Built from the stored row alone, so a retry gets the same body. */
function budgetExhausted(reservation: ReservationRow): Problem {
  return new Problem(
    402,
    `model request ${reservation.request_id} needs ${reservation.booked_tokens} tokens (max_output_tokens plus the input bound), more than the run had left`,
    {
      type: budgetExhaustedType,
      extra: { request_id: reservation.request_id, booked_tokens: reservation.booked_tokens },
    },
  );
}

function usageView(reservation: ReservationRow, usage: UsageRow) {
  return {
    reservation_id: reservation.id,
    booked_tokens: reservation.booked_tokens,
    input_tokens: usage.input_tokens,
    output_tokens: usage.output_tokens,
    used_tokens: usage.used_tokens,
    released_tokens: usage.released_tokens,
  };
}

/** 16 MiB: a 200k-token context of multi-byte text, with room to spare. */
export const modelRequestBodyLimit = 16 * 1024 * 1024;

export function modelRequestRoutes(app: FastifyInstance, ctx: ApiContext) {
  // A model request carries the whole prompt: long contexts are far larger than a tool call.
  app.post(
    '/v1/sessions/:session_id/model-requests',
    { bodyLimit: modelRequestBodyLimit },
    async (request, reply) => {
      const { session_id } = validate(sessionParams, request.params, 'path');
      const run = await ctx.auth.runner(request, session_id);
      const body = validate(admissionBody, request.body, 'body');
      // Thinking blocks the proxy saw produced are bounded here too.
      const origins = await findThinkingOrigins(
        ctx.pool,
        run.workspace_id,
        thinkingDigests(body.input),
      );
      const inputBoundTokens = inputTokenBound(body.input, origins);
      refuseWhatCanNeverFit(run.max_tokens, body.max_output_tokens, inputBoundTokens);
      const requestDigest = digestOf({
        model: body.model,
        max_output_tokens: body.max_output_tokens,
        input: body.input,
      });
      const { reservation } = await admitModelRequest(ctx.pool, {
        runId: run.id,
        sessionId: session_id,
        requestId: body.request_id,
        requestDigest,
        model: body.model,
        maxOutputTokens: body.max_output_tokens,
        inputBoundTokens,
      });
      if (reservation.request_digest !== requestDigest) {
        throw new Problem(
          409,
          `model request ${body.request_id} was already made with a different body`,
        );
      }
      if (reservation.status === 'refused') throw budgetExhausted(reservation);
      return reply
        .code(201)
        .send({ reservation_id: reservation.id, booked_tokens: reservation.booked_tokens });
    },
  );

  app.post('/v1/sessions/:session_id/model-requests/:request_id/usage', async (request) => {
    const params = validate(requestParams, request.params, 'path');
    await ctx.auth.runner(request, params.session_id);
    const body = validate(usageBody, request.body, 'body');
    const result = await reconcileModelRequest(ctx.pool, {
      sessionId: params.session_id,
      requestId: params.request_id,
      inputTokens: body.input_tokens,
      outputTokens: body.output_tokens,
    });
    if (result.kind === 'unknown') throw notFound(`model request ${params.request_id}`);
    if (result.kind === 'refused') {
      throw new Problem(
        409,
        `model request ${params.request_id} was refused admission; there is no reservation to reconcile`,
      );
    }
    const { reservation, usage } = result;
    if (usage.input_tokens !== body.input_tokens || usage.output_tokens !== body.output_tokens) {
      throw new Problem(
        409,
        `the usage of model request ${params.request_id} was already reported with other figures`,
      );
    }
    return usageView(reservation, usage);
  });
}
