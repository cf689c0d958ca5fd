import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { createRun } from '../../application/create-run.js';
import { revokeRunAs } from '../../application/revoke-run.js';
import { asRunId } from '../../domain/gate/ids.js';
import { runSourceSchema } from '../../domain/gate/trust-tier.js';
import { formatUsd } from '../../domain/budget/pricing.js';
import { findBudget, type BudgetFigures } from '../../store/queries/budget.js';
import { findRunRevocation, type RunRevocation } from '../../store/queries/run-revocations.js';
import { findRun, type FrozenRun } from '../../store/queries/runs.js';
import type { ApiContext } from '../context.js';
import { callerPrincipal } from '../callers.js';
import { Problem, notFound } from '../problem.js';
import { anyObject, json, timestamp } from '../route-schemas.js';
import { sessionIdParam } from '../validation.js';

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
const runParams = z.object({ id: z.uuid().transform(asRunId) }).strict();

const runAnswer = z.object({
  run_id: z.uuid(),
  workspace: z.uuid(),
  session_id: z.string(),
  invoked_by: z.uuid(),
  source: anyObject,
  trust_tier: z.enum(['trusted', 'read_only']),
  autonomy: z.enum(['supervised', 'autonomous']),
  policy_id: z.uuid(),
  policy_version: z.number().int(),
  toolset_digest: z.string(),
  /** The frozen tools as the run holds them: schemas, bindings, callability. */
  tools: z.array(anyObject),
  model_provider: z.uuid().nullable(),
  created_at: timestamp,
});
const newRunAnswer = runAnswer.extend({ session_token: z.string() });
const revocationFields = {
  revoked_at: timestamp,
  revoked_by: z.uuid().nullable(),
  because: z
    .enum(['revoked', 'invoker_access_ended'])
    .describe(
      "revoked: by its invoker or the operator; invoker_access_ended: its invoker's access was ended",
    ),
};
const runStateAnswer = runAnswer.extend({
  budget: z.object({
    max_tokens: z.number().int(),
    held_tokens: z.number().int(),
    used_tokens: z.number().int(),
    /** The run's model spend in US dollars (exact to the nano-dollar): settled, and held. */
    spent_usd: z.string(),
    held_usd: z.string(),
  }),
  revocation: z.object(revocationFields).nullable(),
});
const revocationAnswer = z.object({ run_id: z.uuid(), ...revocationFields });

function budgetView(budget: BudgetFigures) {
  return {
    max_tokens: budget.max_tokens,
    held_tokens: budget.held_tokens,
    used_tokens: budget.used_tokens,
    spent_usd: formatUsd(budget.used_nanos),
    held_usd: formatUsd(budget.held_nanos),
  };
}

function runView(run: FrozenRun) {
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

const tags = ['runs'];

export function runRoutes(server: FastifyInstance, ctx: ApiContext) {
  const app = server.withTypeProvider<ZodTypeProvider>();

  app.post(
    '/v1/runs',
    {
      config: { caller: 'operator' },
      schema: {
        operationId: 'createRun',
        summary: 'Create a run: freezes tools, schemas, policy version, trust tier and budget',
        tags,
        body: runBody,
        response: { 201: json('created; the session token is returned once', newRunAnswer) },
      },
    },
    async (request, reply) => {
      const { run, sessionToken } = await createRun(ctx.pool, request.body);
      return reply.code(201).send({ ...runView(run), session_token: sessionToken });
    },
  );

  app.get(
    '/v1/runs/:id',
    {
      config: { caller: 'reader' },
      schema: {
        operationId: 'getRun',
        summary: 'The frozen run and its budget now',
        tags,
        params: runParams,
        response: { 200: json('the run', runStateAnswer) },
      },
    },
    async (request) => {
      const { id } = request.params;
      const principal = callerPrincipal(request);
      if (principal.kind === 'user')
        throw new Problem(403, 'members read runs through their approvals');
      const run = principal.kind === 'runner' ? principal.run : await findRun(ctx.pool, id);
      if (run?.id !== id) throw notFound(`run ${id}`);
      const revocation = await findRunRevocation(ctx.pool, run.id);
      return {
        ...runView(run),
        budget: budgetView(await findBudget(ctx.pool, run.id)),
        revocation: revocation ? revocationView(revocation) : null,
      };
    },
  );

  // The run's end: runs have no other. Its session token stops working at once.
  app.post(
    '/v1/runs/:id/revoke',
    {
      config: { caller: 'revoker' },
      schema: {
        operationId: 'revokeRun',
        summary:
          'End a run: its session token is refused from now on and its pending approvals are denied (idempotent)',
        tags,
        params: runParams,
        response: { 200: json('revoked', revocationAnswer) },
      },
    },
    async (request) => {
      const principal = callerPrincipal(request);
      const revoker =
        principal.kind === 'user'
          ? { kind: 'member' as const, member: principal.member }
          : { kind: 'operator' as const };
      const revocation = await revokeRunAs(ctx, request.params.id, revoker);
      return { run_id: revocation.run_id, ...revocationView(revocation) };
    },
  );
}

function revocationView(revocation: RunRevocation) {
  return {
    revoked_at: revocation.revoked_at,
    revoked_by: revocation.revoked_by,
    because: revocation.because ?? ('revoked' as const),
  };
}
