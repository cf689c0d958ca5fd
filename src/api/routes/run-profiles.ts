import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  changeRunProfile,
  createRunProfile,
  removeRunProfile,
  runProfile,
  runProfiles,
} from '../../application/run-profiles.js';
import type { RunProfile, RunProfileFields } from '../../store/run-profiles.js';
import { callerWorkspace } from '../callers.js';
import type { ApiContext } from '../context.js';
import { empty, json, timestamp } from '../route-schemas.js';
import { runBody } from './runs.js';
import { workspaceParams } from './workspaces.js';

const runProfileParams = z.object({ ws: z.uuid(), id: z.uuid() }).strict();

/** What a run created from the profile takes: run creation's fields, less who and why. */
const runProfileBody = z
  .object({
    name: z.string().trim().min(1).max(100),
    description: z.string().max(1000).default(''),
    policy_id: z.uuid(),
    tools: runBody.shape.tools,
    budget: runBody.shape.budget,
    autonomy: z.enum(['supervised', 'autonomous']),
    trust_tier: z.enum(['trusted', 'read_only']).default('trusted'),
    model_provider: z.uuid().optional(),
  })
  .strict();

const runProfileAnswer = z.object({
  id: z.uuid(),
  workspace: z.uuid(),
  name: z.string(),
  description: z.string(),
  policy_id: z.uuid(),
  tools: z.object({
    bundles: z.array(z.uuid()),
    connections: z.array(z.object({ id: z.uuid(), tools: z.array(z.string()).optional() })),
  }),
  budget: z.object({ max_tokens: z.number().int() }),
  autonomy: z.enum(['supervised', 'autonomous']),
  trust_tier: z.enum(['trusted', 'read_only']),
  model_provider: z.uuid().nullable(),
  created_at: timestamp,
  updated_at: timestamp,
});

function runProfileFields(body: z.infer<typeof runProfileBody>): RunProfileFields {
  return {
    name: body.name,
    description: body.description,
    policy_id: body.policy_id,
    tools: body.tools,
    max_tokens: body.budget.max_tokens,
    autonomy: body.autonomy,
    trust_tier: body.trust_tier,
    model_provider_id: body.model_provider ?? null,
  };
}

function runProfileView(profile: RunProfile) {
  return {
    id: profile.id,
    workspace: profile.workspace_id,
    name: profile.name,
    description: profile.description,
    policy_id: profile.policy_id,
    tools: profile.tools,
    budget: { max_tokens: profile.max_tokens },
    autonomy: profile.autonomy,
    trust_tier: profile.trust_tier,
    model_provider: profile.model_provider_id,
    created_at: profile.created_at,
    updated_at: profile.updated_at,
  };
}

const tags = ['run profiles'];
const config = { caller: 'admin' } as const;

/**
 * Run profiles: the templates an interactive MCP client's authorization creates its run from,
 * managed by the operator and by each workspace's admins.
 */
export function runProfileRoutes(server: FastifyInstance, ctx: ApiContext) {
  const app = server.withTypeProvider<ZodTypeProvider>();

  app.post(
    '/v1/workspaces/:ws/run-profiles',
    {
      config,
      schema: {
        operationId: 'createRunProfile',
        summary: 'Create a run profile: a template for the runs an MCP authorization creates',
        tags,
        params: workspaceParams,
        body: runProfileBody,
        response: { 201: json('created', runProfileAnswer) },
      },
    },
    async (request, reply) => {
      const profile = await createRunProfile(
        ctx.pool,
        callerWorkspace(request),
        request.params.ws,
        runProfileFields(request.body),
      );
      return reply.code(201).send(runProfileView(profile));
    },
  );

  app.get(
    '/v1/workspaces/:ws/run-profiles',
    {
      config,
      schema: {
        operationId: 'listRunProfiles',
        summary: "The workspace's run profiles",
        tags,
        params: workspaceParams,
        response: {
          200: json('the profiles', z.object({ run_profiles: z.array(runProfileAnswer) })),
        },
      },
    },
    async (request) => ({
      run_profiles: (await runProfiles(ctx.pool, callerWorkspace(request), request.params.ws)).map(
        runProfileView,
      ),
    }),
  );

  app.get(
    '/v1/workspaces/:ws/run-profiles/:id',
    {
      config,
      schema: {
        operationId: 'getRunProfile',
        summary: 'A run profile',
        tags,
        params: runProfileParams,
        response: { 200: json('the profile', runProfileAnswer) },
      },
    },
    async (request) => {
      const { ws, id } = request.params;
      return runProfileView(await runProfile(ctx.pool, callerWorkspace(request), ws, id));
    },
  );

  app.put(
    '/v1/workspaces/:ws/run-profiles/:id',
    {
      config,
      schema: {
        operationId: 'replaceRunProfile',
        summary: 'Replace a run profile: runs created from it before keep what they froze',
        tags,
        params: runProfileParams,
        body: runProfileBody,
        response: { 200: json('the profile as it is now', runProfileAnswer) },
      },
    },
    async (request) => {
      const { ws, id } = request.params;
      const profile = await changeRunProfile(
        ctx.pool,
        callerWorkspace(request),
        ws,
        id,
        runProfileFields(request.body),
      );
      return runProfileView(profile);
    },
  );

  app.delete(
    '/v1/workspaces/:ws/run-profiles/:id',
    {
      config,
      schema: {
        operationId: 'deleteRunProfile',
        summary: 'Delete a run profile: no new authorization picks it; its runs keep running',
        tags,
        params: runProfileParams,
        response: { 204: empty('deleted') },
      },
    },
    async (request, reply) => {
      const { ws, id } = request.params;
      await removeRunProfile(ctx.pool, callerWorkspace(request), ws, id);
      return reply.code(204).send(null);
    },
  );
}
