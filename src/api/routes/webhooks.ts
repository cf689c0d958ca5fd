import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
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
import { empty, json, timestamp } from '../route-schemas.js';
import { httpUrl } from '../validation.js';

const webhookParams = z.object({ ws: z.uuid() }).strict();
const webhookIdParams = z.object({ ws: z.uuid(), id: z.uuid() }).strict();
const webhookBody = z
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
      .meta({ uniqueItems: true })
      .default([...approvalEvents]),
    include_arguments: z.boolean().default(false),
  })
  .strict();
const deliveriesQuery = z
  .object({ limit: z.coerce.number().int().min(1).max(500).default(50) })
  .strict();

const webhookAnswer = z.object({
  id: z.uuid(),
  workspace: z.uuid(),
  url: z.string(),
  events: z.array(z.enum(approvalEvents)),
  include_arguments: z.boolean(),
  created_at: timestamp,
});
/** The secret is in the answer once, when the gate generated it. */
const newWebhookAnswer = webhookAnswer.extend({ secret: z.string().optional() });
const deliveriesAnswer = z.object({
  deliveries: z.array(
    z.object({
      id: z.uuid(),
      endpoint_id: z.uuid(),
      event: z.enum(approvalEvents),
      session_id: z.string(),
      tool_call_id: z.string(),
      status: z.enum(['pending', 'delivered', 'failed']),
      attempts: z.number().int(),
      last_status: z.number().int().nullable(),
      last_error: z.string().nullable(),
      last_attempt_at: timestamp.nullable(),
      delivered_at: timestamp.nullable(),
    }),
  ),
});

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

const tags = ['webhooks'];
const config = { caller: 'operator' } as const;

/** Approval notices: an operator registers where they go; the secret is shown only once. */
export function webhookRoutes(server: FastifyInstance, ctx: ApiContext) {
  const app = server.withTypeProvider<ZodTypeProvider>();

  app.post(
    '/v1/workspaces/:ws/webhooks',
    {
      config,
      schema: {
        operationId: 'createWebhook',
        summary: 'Register an approval webhook; a generated secret is returned once',
        tags,
        params: webhookParams,
        body: webhookBody,
        response: { 201: json('created', newWebhookAnswer) },
      },
    },
    async (request, reply) => {
      const { endpoint, generatedSecret } = await createWebhookEndpoint(
        ctx,
        request.params.ws,
        request.body,
      );
      return reply
        .code(201)
        .send({ ...endpointView(endpoint), ...(generatedSecret && { secret: generatedSecret }) });
    },
  );

  app.get(
    '/v1/workspaces/:ws/webhooks',
    {
      config,
      schema: {
        operationId: 'listWebhooks',
        summary: "The workspace's webhook endpoints (never their secrets)",
        tags,
        params: webhookParams,
        response: { 200: json('the endpoints', z.object({ webhooks: z.array(webhookAnswer) })) },
      },
    },
    async (request) => ({
      webhooks: (await webhookEndpoints(ctx.pool, request.params.ws)).map(endpointView),
    }),
  );

  app.delete(
    '/v1/workspaces/:ws/webhooks/:id',
    {
      config,
      schema: {
        operationId: 'deleteWebhook',
        summary: 'Stop sending notices to an endpoint',
        tags,
        params: webhookIdParams,
        response: { 204: empty('deleted') },
      },
    },
    async (request, reply) => {
      const { ws, id } = request.params;
      await removeWebhookEndpoint(ctx.pool, ws, id);
      return reply.code(204).send(null);
    },
  );

  app.get(
    '/v1/workspaces/:ws/webhooks/:id/deliveries',
    {
      config,
      schema: {
        operationId: 'listWebhookDeliveries',
        summary: "An endpoint's latest deliveries with attempts and last status",
        tags,
        params: webhookIdParams,
        querystring: deliveriesQuery,
        response: { 200: json('the deliveries', deliveriesAnswer) },
      },
    },
    async (request) => {
      const { ws, id } = request.params;
      return {
        deliveries: await webhookDeliveries(ctx.pool, ws, id, request.query.limit),
      };
    },
  );
}
