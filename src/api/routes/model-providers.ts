import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { createModelProvider } from '../../application/model-access/create-model-provider.js';
import { rotateProviderKey } from '../../application/model-access/rotate-provider-key.js';
import { removeModelProvider } from '../../application/model-access/remove-model-provider.js';
import { findModelProvider, type ModelProviderRow } from '../../store/queries/model-providers.js';
import type { ApiContext } from '../context.js';
import { Problem, notFound } from '../problem.js';
import { json, timestamp } from '../route-schemas.js';
import { httpUrl } from '../validation.js';
import { originName } from './connections.js';

const apiKeyCredential = z
  .object({ type: z.literal('api_key'), key: z.string().regex(/^[\x21-\x7e]{1,8192}$/) })
  .strict();

const providerBody = z
  .object({
    workspace: z.uuid(),
    name: originName,
    /** Which API it speaks: `anthropic` is reached at /anthropic, `openai` at /openai. */
    kind: z.enum(['anthropic', 'openai']),
    base_url: httpUrl({ query: false }),
    credential: apiKeyCredential,
    /**
     * Off unless asked: with it, the provider fetches any address a model writes in a request
     * (an image or document URL), on either kind.
     */
    allow_url_sources: z.boolean().default(false),
  })
  .strict();

const providerCredentialBody = z.object({ credential: apiKeyCredential }).strict();

const providerParams = z.object({ id: z.uuid() }).strict();

const providerAnswer = z.object({
  id: z.uuid(),
  workspace: z.uuid(),
  name: z.string(),
  kind: z.enum(['anthropic', 'openai']),
  base_url: z.string(),
  allow_url_sources: z.boolean(),
  created_at: timestamp,
  removed_at: timestamp.nullable(),
});

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

const tags = ['model access'];
const config = { caller: 'operator' } as const;

export function modelProviderRoutes(server: FastifyInstance, ctx: ApiContext) {
  const app = server.withTypeProvider<ZodTypeProvider>();

  app.post(
    '/v1/model-providers',
    {
      config,
      schema: {
        operationId: 'createModelProvider',
        summary: 'Register a model provider; its key is sealed and never returned',
        tags,
        body: providerBody,
        response: { 201: json('registered', providerAnswer) },
      },
    },
    async (request, reply) => {
      const { body } = request;
      const outcome = await createModelProvider(ctx, body);
      if (outcome.kind === 'unknown_workspace') throw notFound(`workspace ${body.workspace}`);
      if (outcome.kind === 'name_taken')
        throw new Problem(409, `the workspace already has a model provider named ${body.name}`);
      return reply.code(201).send(providerView(outcome.provider));
    },
  );

  app.get(
    '/v1/model-providers/:id',
    {
      config,
      schema: {
        operationId: 'getModelProvider',
        summary: 'A model provider (without its key)',
        tags,
        params: providerParams,
        response: { 200: json('the provider', providerAnswer) },
      },
    },
    async (request) => {
      const { id } = request.params;
      const row = await findModelProvider(ctx.pool, id);
      if (!row) throw notFound(`model provider ${id}`);
      return providerView(row);
    },
  );

  app.put(
    '/v1/model-providers/:id/credential',
    {
      config,
      schema: {
        operationId: 'rotateModelProviderKey',
        summary: "Replace a provider's key; requests from now on use the new one",
        tags,
        params: providerParams,
        body: providerCredentialBody,
        response: { 200: json('the provider (without its key)', providerAnswer) },
      },
    },
    async (request) => {
      const { id } = request.params;
      const rotation = await rotateProviderKey(ctx, id, request.body.credential);
      if (rotation.kind === 'unknown') throw notFound(`model provider ${id}`);
      if (rotation.kind === 'removed') throw removedProblem(rotation.provider);
      return providerView(rotation.provider);
    },
  );

  // Runs frozen with a removed provider keep it named, and are refused at the model endpoint.
  app.delete(
    '/v1/model-providers/:id',
    {
      config,
      schema: {
        operationId: 'removeModelProvider',
        summary: 'Remove a provider: runs frozen with it reach no model any more',
        tags,
        params: providerParams,
        response: { 200: json('the provider, removed', providerAnswer) },
      },
    },
    async (request) => {
      const { id } = request.params;
      const row = await removeModelProvider(ctx.pool, id);
      if (!row) throw notFound(`model provider ${id}`);
      return providerView(row);
    },
  );
}
