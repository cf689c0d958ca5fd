import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { formatUsd, nanosPerUsd } from '../../domain/budget/pricing.js';
import { admitModelRequest } from '../../application/admit-model-request.js';
import { reportModelUsage } from '../../application/report-model-usage.js';
import { modelInputSchema } from '../../domain/budget/model-input-schema.js';
import { maxOutputTokensLimit, modelId } from '../../domain/budget/messages-request.js';
import type { ReservationRow, UsageRow } from '../../store/budget.js';
import { callerRun } from '../callers.js';
import type { ApiContext } from '../context.js';
import { problemSchema } from '../problem.js';
import { json, problem } from '../route-schemas.js';
import { externalId, sessionIdParam } from '../validation.js';

const maxReportedTokens = 1_000_000_000;

const sessionParams = z.object({ session_id: sessionIdParam }).strict();
const requestParams = z.object({ session_id: sessionIdParam, request_id: externalId }).strict();
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

function usageView(reservation: ReservationRow, usage: UsageRow) {
  return {
    reservation_id: reservation.id,
    booked_tokens: reservation.booked_tokens,
    input_tokens: usage.input_tokens,
    output_tokens: usage.output_tokens,
    used_tokens: usage.used_tokens,
    released_tokens: usage.released_tokens,
    cost_usd: usage.cost_nanos === null ? null : formatUsd(usage.cost_nanos),
  };
}

/** 16 MiB: a 200k-token context of multi-byte text, with room to spare. */
export const modelRequestBodyLimit = 16 * 1024 * 1024;

const admissionAnswer = z.object({
  reservation_id: z.uuid(),
  booked_tokens: z.number().int(),
  /** The worst-case cost booked at every level, in US dollars. */
  booked_usd: z.string(),
});
const budgetExhaustedAnswer = problemSchema.extend({
  request_id: z.string(),
  booked_tokens: z.number().int(),
  booked_usd: z.string().optional(),
  /** The level that refused: `run, life`, `person "ana", day`, `team "payments", month`, … */
  level: z.string().optional(),
});
const usageAnswer = z.object({
  reservation_id: z.uuid(),
  booked_tokens: z.number().int(),
  input_tokens: z.number().int(),
  output_tokens: z.number().int(),
  used_tokens: z.number().int(),
  released_tokens: z.number().int(),
  /** The exchange's cost in US dollars; null for a request booked before prices. */
  cost_usd: z.string().nullable(),
});

const tags = ['budget'];

export function modelRequestRoutes(server: FastifyInstance, ctx: ApiContext) {
  const app = server.withTypeProvider<ZodTypeProvider>();
  const config = { caller: 'runner', holds: 'writes' } as const;

  app.post(
    '/v1/sessions/:session_id/model-requests',
    {
      // A model request carries the whole prompt: long contexts are far larger than a tool call.
      bodyLimit: modelRequestBodyLimit,
      config,
      schema: {
        operationId: 'admitModelRequest',
        summary: 'Book a model request against the budget',
        tags,
        params: sessionParams,
        body: admissionBody,
        response: {
          201: json('booked', admissionAnswer),
          402: problem('the budget is exhausted', budgetExhaustedAnswer),
        },
      },
    },
    async (request, reply) => {
      const reservation = await admitModelRequest(ctx.pool, callerRun(request), request.body);
      return reply.code(201).send({
        reservation_id: reservation.id,
        booked_tokens: reservation.booked_tokens,
        booked_usd: formatUsd(reservation.booked_nanos ?? 0),
      });
    },
  );

  app.post(
    '/v1/sessions/:session_id/model-requests/:request_id/usage',
    {
      config,
      schema: {
        operationId: 'reportModelUsage',
        summary: 'Reconcile a booked request with its real usage (once)',
        tags,
        params: requestParams,
        body: usageBody,
        response: { 200: json('reconciled', usageAnswer) },
      },
    },
    async (request) => {
      const { reservation, usage } = await reportModelUsage(ctx.pool, callerRun(request), {
        request_id: request.params.request_id,
        ...request.body,
      });
      if (usage.cost_nanos)
        ctx.metrics.modelSpend.inc(
          { provider_kind: reservation.provider_kind ?? 'anthropic', via: 'runner' },
          usage.cost_nanos / nanosPerUsd,
        );
      return usageView(reservation, usage);
    },
  );
}
