import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { createModelProvider } from '../../application/model-access/create-model-provider.js';
import { findModelProvider, type ModelProviderRow } from '../../store/model-providers.js';
import type { ApiContext } from '../context.js';
import { Problem, notFound } from '../problem.js';
import { validate } from '../validation.js';
import { originName } from './connections.js';

/** An http(s) origin with an optional path; a key in the URL itself would escape the sealer. */
const baseUrl = z
  .url({ protocol: /^https?$/ })
  .max(2048)
  .refine((value) => {
    const url = new URL(value);
    return url.username === '' && url.password === '' && url.search === '' && url.hash === '';
  }, 'must be an http(s) URL without credentials, query or fragment');

export const providerBody = z
  .object({
    workspace: z.uuid(),
    name: originName,
    kind: z.literal('anthropic'),
    base_url: baseUrl,
    credential: z
      .object({ type: z.literal('api_key'), key: z.string().regex(/^[\x21-\x7e]{1,8192}$/) })
      .strict(),
    /** Off unless asked: with it, the provider fetches any address a model writes in a request. */
    allow_url_sources: z.boolean().default(false),
  })
  .strict();

export const providerParams = z.object({ id: z.uuid() }).strict();

function providerView(row: ModelProviderRow) {
  return {
    id: row.id,
    workspace: row.workspace_id,
    name: row.name,
    kind: row.kind,
    base_url: row.base_url,
    allow_url_sources: row.allow_url_sources,
    created_at: row.created_at,
  };
}

export function modelProviderRoutes(app: FastifyInstance, ctx: ApiContext) {
  app.post('/v1/model-providers', async (request, reply) => {
    await ctx.auth.operator(request);
    const body = validate(providerBody, request.body, 'body');
    const outcome = await createModelProvider(ctx, body);
    if (outcome.kind === 'unknown_workspace') throw notFound(`workspace ${body.workspace}`);
    if (outcome.kind === 'name_taken')
      throw new Problem(409, `the workspace already has a model provider named ${body.name}`);
    return reply.code(201).send(providerView(outcome.provider));
  });

  app.get('/v1/model-providers/:id', async (request) => {
    await ctx.auth.operator(request);
    const { id } = validate(providerParams, request.params, 'path');
    const row = await findModelProvider(ctx.pool, id);
    if (!row) throw notFound(`model provider ${id}`);
    return providerView(row);
  });
}
