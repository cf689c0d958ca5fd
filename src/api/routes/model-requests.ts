import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { admitModelRequest } from '../../application/admit-model-request.js';
import { reportModelUsage } from '../../application/report-model-usage.js';
import { modelInputSchema } from '../../domain/budget/model-input-schema.js';
import { maxOutputTokensLimit, modelId } from '../../domain/budget/messages-request.js';
import type { ReservationRow, UsageRow } from '../../store/budget.js';
import type { ApiContext } from '../context.js';
import { externalId, sessionIdParam, validate } from '../validation.js';

const maxReportedTokens = 1_000_000_000;

export const sessionParams = z.object({ session_id: sessionIdParam }).strict();
export const requestParams = z
  .object({ session_id: sessionIdParam, request_id: externalId })
  .strict();
export const admissionBody = z
  .object({
    request_id: externalId,
    model: modelId,
    max_output_tokens: z.number().int().min(1).max(maxOutputTokensLimit),
    input: modelInputSchema,
  })
  .strict();
const tokenCount = z.number().int().min(0).max(maxReportedTokens);
export const usageBody = z.object({ input_tokens: tokenCount, output_tokens: tokenCount }).strict();

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
    { bodyLimit: modelRequestBodyLimit, config: { holds: 'writes' } },
    async (request, reply) => {
      const { session_id } = validate(sessionParams, request.params, 'path');
      const run = await ctx.auth.runner(request, session_id);
      const body = validate(admissionBody, request.body, 'body');
      const reservation = await admitModelRequest(ctx.pool, run, body);
      return reply
        .code(201)
        .send({ reservation_id: reservation.id, booked_tokens: reservation.booked_tokens });
    },
  );

  const write = { config: { holds: 'writes' } } as const;
  app.post('/v1/sessions/:session_id/model-requests/:request_id/usage', write, async (request) => {
    const params = validate(requestParams, request.params, 'path');
    const run = await ctx.auth.runner(request, params.session_id);
    const body = validate(usageBody, request.body, 'body');
    const { reservation, usage } = await reportModelUsage(ctx.pool, run, {
      request_id: params.request_id,
      ...body,
    });
    return usageView(reservation, usage);
  });
}
