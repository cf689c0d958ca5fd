import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { policyBodySchema } from '../../domain/policy/policy.js';
import { createPolicy, revisePolicy } from '../../application/policies.js';
import { findPolicyVersion } from '../../store/policies.js';
import type { ApiContext } from '../context.js';
import { notFound } from '../problem.js';
import { anyObject, json, timestamp } from '../route-schemas.js';

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

export const policyAnswer = z.object({ id: z.uuid(), version: z.number().int() });
/** A version as it was written, its rules as stored (the policy language is docs/policies.md). */
export const policyVersionAnswer = policyBodySchema.omit({ workspace: true }).extend({
  rules: z.array(anyObject),
  id: z.uuid(),
  workspace: z.uuid(),
  version: z.number().int(),
  created_at: timestamp,
});

const tags = ['policies'];
const config = { caller: 'operator' } as const;

export function policyRoutes(server: FastifyInstance, ctx: ApiContext) {
  const app = server.withTypeProvider<ZodTypeProvider>();

  app.post(
    '/v1/policies',
    {
      config,
      schema: {
        operationId: 'createPolicy',
        summary: 'Create a policy (version 1)',
        tags,
        body: policyBodySchema,
        response: { 201: json('created', policyAnswer) },
      },
    },
    async (request, reply) => reply.code(201).send(await createPolicy(ctx.pool, request.body)),
  );

  app.put(
    '/v1/policies/:id',
    {
      config,
      schema: {
        operationId: 'revisePolicy',
        summary: 'A new immutable version of a policy',
        tags,
        params: policyParams,
        body: policyBodySchema,
        response: { 200: json('revised', policyAnswer) },
      },
    },
    async (request) => revisePolicy(ctx.pool, request.params.id, request.body),
  );

  app.get(
    '/v1/policies/:id/versions/:n',
    {
      config,
      schema: {
        operationId: 'getPolicyVersion',
        summary: 'One version of a policy',
        tags,
        params: versionParams,
        response: { 200: json('the version', policyVersionAnswer) },
      },
    },
    async (request) => {
      const { id, n } = request.params;
      const version = await findPolicyVersion(ctx.pool, id, n);
      if (!version) throw notFound(`version ${n} of policy ${id}`);
      return {
        ...version.body,
        id: version.policy_id,
        workspace: version.workspace_id,
        version: version.version,
        created_at: version.created_at,
      };
    },
  );
}
