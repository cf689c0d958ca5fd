import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { policyBodySchema } from '../../domain/policy/policy.js';
import { createPolicy, revisePolicy, shadowPolicy } from '../../application/policies.js';
import {
  simulatePolicy,
  type RecordedCalls,
  type SimulationRequest,
  type SimulationViewer,
} from '../../application/simulate-policy.js';
import { findPolicyVersion } from '../../store/policies.js';
import { recordedCallsFromTemporal } from '../../temporal/recorded-calls.js';
import type { ApiContext } from '../context.js';
import { notFound } from '../problem.js';
import { externalId, validate } from '../validation.js';

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

/** `{version: n | null}`: the version a policy's calls are also evaluated against, or none. */
export const shadowBody = z
  .object({
    version: z
      .number()
      .int()
      .min(1)
      .max(2 ** 31 - 1)
      .nullable(),
  })
  .strict();

const dayMs = 24 * 3600_000;

/** `{candidate | version, since?, until?, sessions?, limit?}`: the window is a week by default. */
export const simulateBody = z
  .object({
    candidate: policyBodySchema.optional(),
    version: z
      .number()
      .int()
      .min(1)
      .max(2 ** 31 - 1)
      .optional(),
    since: z.iso.datetime({ offset: true }).optional(),
    until: z.iso.datetime({ offset: true }).optional(),
    sessions: z.array(externalId).min(1).max(100).optional(),
    limit: z.number().int().min(1).max(100_000).default(10_000),
  })
  .strict()
  .refine((body) => (body.candidate === undefined) !== (body.version === undefined), {
    error: 'give exactly one of candidate (a policy body) and version',
    path: ['candidate'],
  })
  .transform((body, ctx) => {
    const until = body.until ? new Date(body.until) : new Date();
    const since = body.since ? new Date(body.since) : new Date(until.getTime() - 7 * dayMs);
    if (since >= until) {
      ctx.addIssue({ code: 'custom', message: 'must be before until', path: ['since'] });
    }
    return { ...body, since, until };
  });

/** The use case's request from a validated body. */
export function simulationRequest(
  policyId: string,
  body: z.output<typeof simulateBody>,
): SimulationRequest {
  return {
    policy_id: policyId,
    ...(body.candidate && { candidate: body.candidate }),
    ...(body.version !== undefined && { version: body.version }),
    window: {
      since: body.since,
      until: body.until,
      ...(body.sessions && { sessions: body.sessions }),
    },
    limit: body.limit,
  };
}

/** The recorded calls of Temporal's histories, opened with the API's codec. */
export function temporalRecordedCalls(ctx: ApiContext): RecordedCalls {
  const { client } = ctx.gate;
  return (window, signal) => recordedCallsFromTemporal(client, ctx.codec, window, signal);
}

/** How long one simulation may read before it answers with what it has. */
const simulationDeadlineMs = 20_000;

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

  app.put('/v1/policies/:id/shadow', async (request) => {
    await ctx.auth.operator(request);
    const { id } = validate(policyParams, request.params, 'path');
    const { version } = validate(shadowBody, request.body, 'body');
    return shadowPolicy(ctx.pool, id, version);
  });

  app.post('/v1/policies/:id/simulate', async (request) => {
    const { workspace } = await ctx.auth.operatorOrAdmin(request);
    // Argument values may be a personal connection's: the operator reads them, as with the codec.
    const viewer: SimulationViewer =
      workspace === undefined ? { showArguments: true } : { workspace, showArguments: false };
    const { id } = validate(policyParams, request.params, 'path');
    const body = validate(simulateBody, request.body, 'body');
    return simulatePolicy(
      ctx.pool,
      temporalRecordedCalls(ctx),
      simulationRequest(id, body),
      viewer,
      simulationDeadlineMs,
    );
  });
}
