import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { createRun } from '../../application/create-run.js';
import { revokeRunAs } from '../../application/revoke-run.js';
import { asRunId } from '../../domain/gate/ids.js';
import { runSourceSchema } from '../../domain/gate/trust-tier.js';
import { findBudget } from '../../store/budget.js';
import { findRunRevocation, type RunRevocation } from '../../store/run-revocations.js';
import { findRun, type FrozenRun } from '../../store/runs.js';
import type { ApiContext } from '../context.js';
import { Problem, notFound } from '../problem.js';
import { sessionIdParam, validate } from '../validation.js';

export const runBody = z
  .object({
    workspace: z.uuid(),
    session_id: sessionIdParam,
    invoked_by: z.uuid(),
    source: runSourceSchema,
    autonomy: z.enum(['supervised', 'autonomous']),
    policy_id: z.uuid(),
    tools: z
      .object({
        bundles: z.array(z.uuid()).max(64).default([]),
        connections: z
          .array(
            z.object({ id: z.uuid(), tools: z.array(z.string()).max(512).optional() }).strict(),
          )
          .max(64)
          .default([]),
      })
      .strict(),
    budget: z.object({ max_tokens: z.number().int().min(1).max(1_000_000_000) }).strict(),
    model_provider: z.uuid().optional(),
  })
  .strict();
export const runParams = z.object({ id: z.uuid().transform(asRunId) }).strict();

export function runView(run: FrozenRun) {
  return {
    run_id: run.id,
    workspace: run.workspace_id,
    session_id: run.session_id,
    invoked_by: run.invoked_by,
    source: run.source,
    trust_tier: run.trust_tier,
    autonomy: run.autonomy,
    policy_id: run.policy_id,
    policy_version: run.policy_version,
    toolset_digest: run.toolset_digest,
    tools: run.toolset,
    model_provider: run.model_provider_id,
    created_at: run.created_at,
  };
}

export function runRoutes(app: FastifyInstance, ctx: ApiContext) {
  app.post('/v1/runs', async (request, reply) => {
    await ctx.auth.operator(request);
    const body = validate(runBody, request.body, 'body');
    const { run, sessionToken } = await createRun(ctx.pool, body);
    return reply.code(201).send({ ...runView(run), session_token: sessionToken });
  });

  app.get('/v1/runs/:id', async (request) => {
    const { id } = validate(runParams, request.params, 'path');
    const principal = await ctx.auth.principal(request);
    if (principal.kind === 'user')
      throw new Problem(403, 'members read runs through their approvals');
    const run = principal.kind === 'runner' ? principal.run : await findRun(ctx.pool, id);
    if (run?.id !== id) throw notFound(`run ${id}`);
    const revocation = await findRunRevocation(ctx.pool, run.id);
    return {
      ...runView(run),
      budget: await findBudget(ctx.pool, run.id),
      revocation: revocation ? revocationView(revocation) : null,
    };
  });

  // The run's end: runs have no other. Its session token stops working at once.
  app.post('/v1/runs/:id/revoke', async (request) => {
    const { id } = validate(runParams, request.params, 'path');
    const principal = await ctx.auth.principal(request);
    if (principal.kind === 'runner')
      throw new Problem(403, "only the run's invoker or the operator may revoke it");
    const revoker =
      principal.kind === 'operator'
        ? principal
        : { kind: 'member' as const, member: principal.member };
    const revocation = await revokeRunAs(ctx, id, revoker);
    return { run_id: revocation.run_id, ...revocationView(revocation) };
  });
}

function revocationView(revocation: RunRevocation) {
  return { revoked_at: revocation.revoked_at, revoked_by: revocation.revoked_by };
}
