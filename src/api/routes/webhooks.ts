import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import {
  createWebhookEndpoint,
  removeWebhookEndpoint,
  webhookDeliveries,
  webhookEndpoints,
} from '../../application/webhook-endpoints.js';
import { approvalEvents } from '../../domain/notify/approval-notice.js';
import { secretPattern } from '../../domain/notify/webhook-signature.js';
import type { WebhookEndpoint } from '../../store/webhooks.js';
import type { ApiContext } from '../context.js';
import { httpUrl, validate } from '../validation.js';

export const webhookParams = z.object({ ws: z.uuid() }).strict();
export const webhookIdParams = z.object({ ws: z.uuid(), id: z.uuid() }).strict();
export const webhookBody = z
  .object({
    url: httpUrl({ query: true }),
    secret: z
      .string()
      .regex(secretPattern, 'must be whsec_ and 24 to 64 bytes in base64')
      .optional(),
    events: z
      .array(z.enum(approvalEvents))
      .min(1)
      .max(approvalEvents.length)
      .refine((events) => new Set(events).size === events.length, 'must not repeat an event')
      .default([...approvalEvents]),
    include_arguments: z.boolean().default(false),
  })
  .strict();
export const deliveriesQuery = z
  .object({ limit: z.coerce.number().int().min(1).max(500).default(50) })
  .strict();

function endpointView(endpoint: WebhookEndpoint) {
  return {
    id: endpoint.id,
    workspace: endpoint.workspace_id,
    url: endpoint.url,
    events: endpoint.events,
    include_arguments: endpoint.include_arguments,
    created_at: endpoint.created_at,
  };
}

/** Approval notices: an operator registers where they go; the secret is shown only once. */
export function webhookRoutes(app: FastifyInstance, ctx: ApiContext) {
  app.post('/v1/workspaces/:ws/webhooks', async (request, reply) => {
    await ctx.auth.operator(request);
    const { ws } = validate(webhookParams, request.params, 'path');
    const body = validate(webhookBody, request.body, 'body');
    const { endpoint, generatedSecret } = await createWebhookEndpoint(ctx, ws, body);
    return reply
      .code(201)
      .send({ ...endpointView(endpoint), ...(generatedSecret && { secret: generatedSecret }) });
  });

  app.get('/v1/workspaces/:ws/webhooks', async (request) => {
    await ctx.auth.operator(request);
    const { ws } = validate(webhookParams, request.params, 'path');
    return { webhooks: (await webhookEndpoints(ctx.pool, ws)).map(endpointView) };
  });

  app.delete('/v1/workspaces/:ws/webhooks/:id', async (request, reply) => {
    await ctx.auth.operator(request);
    const { ws, id } = validate(webhookIdParams, request.params, 'path');
    await removeWebhookEndpoint(ctx.pool, ws, id);
    return reply.code(204).send();
  });

  app.get('/v1/workspaces/:ws/webhooks/:id/deliveries', async (request) => {
    await ctx.auth.operator(request);
    const { ws, id } = validate(webhookIdParams, request.params, 'path');
    const { limit } = validate(deliveriesQuery, request.query, 'query');
    return { deliveries: await webhookDeliveries(ctx.pool, ws, id, limit) };
  });
}
