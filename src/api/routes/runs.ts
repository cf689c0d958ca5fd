import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { externalIdPattern } from '../../domain/ids.js';
import { toolSetDigest } from '../../domain/tools.js';
import { runSourceSchema, trustTierOf } from '../../domain/trust-tier.js';
import { findBudget } from '../../store/budget.js';
import { findMember } from '../../store/members.js';
import { findModelProvider } from '../../store/model-providers.js';
import { findPolicyVersion } from '../../store/policies.js';
import { redact } from '../../domain/redaction.js';
import { appendEvent } from '../../store/ledger.js';
import { withTransaction } from '../../store/pool.js';
import { findRun, insertRun, type FrozenRun } from '../../store/runs.js';
import type { ApiContext } from '../context.js';
import { freezeRunTools } from '../toolset-sources.js';
import { Problem, badInput, notFound } from '../problem.js';
import { hashToken, newToken } from '../tokens.js';
import { validate } from '../validation.js';

export const externalId = z
  .string()
  .regex(externalIdPattern, 'must be 1 to 128 of A-Z a-z 0-9 . _ : -');

const runBody = z
  .object({
    workspace: z.uuid(),
    session_id: externalId,
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

function runCreatedEvent(run: FrozenRun) {
  return redact('run.created', {
    run_id: run.id,
    workspace: run.workspace_id,
    invoked_by: run.invoked_by,
    source_kind: run.source.kind,
    trust_tier: run.trust_tier,
    autonomy: run.autonomy,
    policy_id: run.policy_id,
    policy_version: run.policy_version,
    toolset_digest: run.toolset_digest,
    max_tokens: run.max_tokens,
    model_provider: run.model_provider_id,
  });
}

export function runRoutes(app: FastifyInstance, ctx: ApiContext) {
  app.post('/v1/runs', async (request, reply) => {
    await ctx.auth.operator(request);
    const body = validate(runBody, request.body, 'body');
    const invoker = await findMember(ctx.pool, body.workspace, body.invoked_by);
    if (invoker?.status !== 'active') {
      throw badInput('invoked_by must be an active member of the workspace', [
        { path: 'body.invoked_by', message: 'not an active member of this workspace' },
      ]);
    }
    const policy = await findPolicyVersion(ctx.pool, body.policy_id);
    if (policy?.workspace_id !== body.workspace)
      throw notFound(`policy ${body.policy_id} in this workspace`);
    if (body.model_provider !== undefined) {
      const provider = await findModelProvider(ctx.pool, body.model_provider);
      if (provider?.workspace_id !== body.workspace)
        throw notFound(`model provider ${body.model_provider} in this workspace`);
    }
    const toolset = await freezeRunTools(ctx.pool, body.workspace, body.invoked_by, body.tools);
    const sessionToken = newToken('session');
    const run = await withTransaction(ctx.pool, async (tx) => {
      const created = await insertRun(tx, {
        workspace_id: body.workspace,
        session_id: body.session_id,
        session_token_hash: hashToken(sessionToken),
        invoked_by: body.invoked_by,
        source: body.source,
        trust_tier: trustTierOf(body.source),
        autonomy: body.autonomy,
        policy_id: policy.policy_id,
        policy_version: policy.version,
        toolset,
        toolset_digest: toolSetDigest(toolset),
        max_tokens: body.budget.max_tokens,
        model_provider_id: body.model_provider ?? null,
      });
      if (created) await appendEvent(tx, created.session_id, runCreatedEvent(created));
      return created;
    });
    if (!run) throw new Problem(409, `session ${body.session_id} already has a run`);
    return reply.code(201).send({ ...runView(run), session_token: sessionToken });
  });

  app.get('/v1/runs/:id', async (request) => {
    const { id } = validate(z.object({ id: z.uuid() }).strict(), request.params, 'path');
    const principal = await ctx.auth.principal(request);
    if (principal.kind === 'user')
      throw new Problem(403, 'members read runs through their approvals');
    const run = principal.kind === 'runner' ? principal.run : await findRun(ctx.pool, id);
    if (run?.id !== id) throw notFound(`run ${id}`);
    return {
      ...runView(run),
      budget: await findBudget(ctx.pool, run.id),
    };
  });
}
