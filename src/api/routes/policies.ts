import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { policyBodySchema } from '../../domain/policy/policy.js';
import { createPolicy, revisePolicy } from '../../application/policies.js';
import { findPolicyVersion } from '../../store/policies.js';
import type { ApiContext } from '../context.js';
import { notFound } from '../problem.js';
import { validate } from '../validation.js';

export const policyParams = z.object({ id: z.uuid() }).strict();
export const versionParams = z
  .object({
    id: z.uuid(),
    n: z.coerce
      .number()
      .int()
      .min(1)
      .max(2 ** 31 - 1),
  })
  .strict();

export function policyRoutes(app: FastifyInstance, ctx: ApiContext) {
  app.post('/v1/policies', async (request, reply) => {
    await ctx.auth.operator(request);
    const body = validate(policyBodySchema, request.body, 'body');
    return reply.code(201).send(await createPolicy(ctx.pool, body));
  });

  app.put('/v1/policies/:id', async (request) => {
    await ctx.auth.operator(request);
    const { id } = validate(policyParams, request.params, 'path');
    const body = validate(policyBodySchema, request.body, 'body');
    return revisePolicy(ctx.pool, id, body);
  });

  app.get('/v1/policies/:id/versions/:n', async (request) => {
    await ctx.auth.operator(request);
    const { id, n } = validate(versionParams, request.params, 'path');
    const version = await findPolicyVersion(ctx.pool, id, n);
    if (!version) throw notFound(`version ${n} of policy ${id}`);
    return {
      ...version.body,
      id: version.policy_id,
      workspace: version.workspace_id,
      version: version.version,
      created_at: version.created_at,
    };
  });
}
