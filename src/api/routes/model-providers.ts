import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { createModelProvider } from '../../application/model-access/create-model-provider.js';
import { rotateProviderKey } from '../../application/model-access/rotate-provider-key.js';
import {
  findModelProvider,
  removeModelProvider,
  type ModelProviderRow,
} from '../../store/model-providers.js';
import type { ApiContext } from '../context.js';
import { Problem, notFound } from '../problem.js';
import { httpUrl, validate } from '../validation.js';
import { originName } from './connections.js';

const apiKeyCredential = z
  .object({ type: z.literal('api_key'), key: z.string().regex(/^[\x21-\x7e]{1,8192}$/) })
  .strict();

export const providerBody = z
  .object({
    workspace: z.uuid(),
    name: originName,
    kind: z.literal('anthropic'),
    base_url: httpUrl({ query: false }),
    credential: apiKeyCredential,
    /** Off unless asked: with it, the provider fetches any address a model writes in a request. */
    allow_url_sources: z.boolean().default(false),
  })
  .strict();

export const providerCredentialBody = z.object({ credential: apiKeyCredential }).strict();

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
    removed_at: row.removed_at,
  };
}

const removedProblem = (row: ModelProviderRow) =>
  new Problem(409, `model provider ${row.id} was removed; create a new one`);

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

  app.put('/v1/model-providers/:id/credential', async (request) => {
    await ctx.auth.operator(request);
    const { id } = validate(providerParams, request.params, 'path');
    const { credential } = validate(providerCredentialBody, request.body, 'body');
    const rotation = await rotateProviderKey(ctx, id, credential);
    if (rotation.kind === 'unknown') throw notFound(`model provider ${id}`);
    if (rotation.kind === 'removed') throw removedProblem(rotation.provider);
    return providerView(rotation.provider);
  });

  // Runs frozen with a removed provider keep it named, and are refused at the model endpoint.
  app.delete('/v1/model-providers/:id', async (request) => {
    await ctx.auth.operator(request);
    const { id } = validate(providerParams, request.params, 'path');
    const row = await removeModelProvider(ctx.pool, id);
    if (!row) throw notFound(`model provider ${id}`);
    return providerView(row);
  });
}
