import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { denySources } from '../../domain/gate/vocabulary.js';
import { policyBodySchema } from '../../domain/policy/policy.js';
import { createPolicy, revisePolicy, shadowPolicy } from '../../application/policies.js';
import {
  simulatePolicy,
  type RecordedCalls,
  type SimulationRequest,
} from '../../application/simulate-policy.js';
import { findPolicyVersion } from '../../store/queries/policies.js';
import { recordedCallsFromTemporal } from '../../temporal/recorded-calls.js';
import type { ApiContext } from '../context.js';
import { notFound } from '../problem.js';
import { callerAdmin } from '../callers.js';
import { anyObject, json, timestamp } from '../route-schemas.js';
import { externalId } from '../validation.js';

export const policyParams = z.object({ id: z.uuid() }).strict();
const versionParams = z
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
const shadowBody = z
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
  .meta({ oneOf: [{ required: ['candidate'] }, { required: ['version'] }] })
  .transform((body, ctx) => {
    const until = body.until ? new Date(body.until) : new Date();
    const since = body.since ? new Date(body.since) : new Date(until.getTime() - 7 * dayMs);
    if (since >= until) {
      ctx.addIssue({ code: 'custom', message: 'must be before until', path: ['since'] });
    }
    return { ...body, since, until };
  });

const shadowAnswer = z.object({ id: z.uuid(), shadow_version: z.number().int().nullable() });

const outcome = z.enum(['allow', 'deny', 'ask']);
/** The counts over the window, and the calls whose outcome the candidate would change. */
const simulationAnswer = z.object({
  policy_id: z.uuid(),
  candidate_version: z.number().int().nullable(),
  recorded_versions: z.array(z.number().int()),
  since: z.string(),
  until: z.string(),
  evaluated: z.number().int(),
  /** Calls read but not evaluated: their arguments are not the caller's to read. */
  withheld: z.number().int(),
  by_outcome: z.record(outcome, z.number().int()),
  by_rule: z.record(z.string(), z.number().int()),
  changed: z.array(
    z.object({
      session_id: z.string(),
      tool_call_id: z.string(),
      tool: z.string(),
      recorded: z.object({
        decision: z.enum(['allow', 'deny']),
        source: z.enum(denySources).optional(),
        rule_id: z.string().optional(),
        asked: z.boolean(),
      }),
      candidate: z.object({
        decision: outcome,
        rule_id: z.string().nullable(),
        reason: z.string(),
      }),
      /** Only for a reader allowed to see argument values. */
      arguments: z.unknown().optional(),
    }),
  ),
  complete: z.boolean(),
  stopped_by: z.enum(['limit', 'deadline']).nullable(),
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

const policyAnswer = z.object({ id: z.uuid(), version: z.number().int() });
/** A version as it was written, its rules as stored (the policy language is docs/policies.md). */
const policyVersionAnswer = policyBodySchema.omit({ workspace: true }).extend({
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

  app.put(
    '/v1/policies/:id/shadow',
    {
      config,
      schema: {
        operationId: 'shadowPolicy',
        summary:
          'The version every call under the policy is also evaluated against, without effect',
        tags,
        params: policyParams,
        body: shadowBody,
        response: { 200: json('named', shadowAnswer) },
      },
    },
    async (request) => shadowPolicy(ctx.pool, request.params.id, request.body.version),
  );

  app.post(
    '/v1/policies/:id/simulate',
    {
      config: { caller: 'admin' },
      schema: {
        operationId: 'simulatePolicy',
        summary: "What a candidate would have decided on the policy's recorded calls",
        tags,
        params: policyParams,
        body: simulateBody,
        response: { 200: json('the simulation', simulationAnswer) },
      },
    },
    async (request) => {
      return simulatePolicy(
        ctx.pool,
        temporalRecordedCalls(ctx),
        simulationRequest(request.params.id, request.body),
        callerAdmin(request),
        ctx.simulation,
      );
    },
  );
}
