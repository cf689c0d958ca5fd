import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { listRunGrants } from '../../application/list-run-grants.js';
import { revokeRunGrant } from '../../application/revoke-grant.js';
import { scopeText } from '../../domain/approvals/grant-offers.js';
import { isGrantScope, scopeKinds } from '../../domain/approvals/grant-scopes.js';
import { mayDecide, seesArguments } from '../../domain/gate/approval.js';
import { grantsOfRun, type GrantRow } from '../../store/queries/approval-grants.js';
import type { Member } from '../../store/members.js';
import type { ApiContext } from '../context.js';
import { callerMember } from '../callers.js';
import { Problem, notFound } from '../problem.js';
import { anyObject, json, timestamp } from '../route-schemas.js';

const runGrantsParams = z.object({ id: z.uuid() }).strict();
const runGrantParams = z.object({ id: z.uuid(), grant_id: z.uuid() }).strict();

/**
 * A grant as this member may see it: its scope (paths, command words) only for those who may
 * read the arguments of the call it was given with; others see its tool and `scope_hidden`.
 */
const grantAnswer = z.object({
  grant_id: z.uuid(),
  run_id: z.uuid(),
  tool: z.string(),
  kind: z.enum(scopeKinds as [string, ...string[]]).nullable(),
  scope: z.object({ text: z.string(), arguments: anyObject }).nullable().optional(),
  scope_hidden: z.literal(true).optional(),
  rule_id: z.string().nullable(),
  policy_version: z.number().int(),
  session_id: z.string(),
  tool_call_id: z.string(),
  granted_by: z.uuid(),
  granted_by_name: z.string(),
  created_at: timestamp,
  expires_at: timestamp.nullable(),
  revoked_at: timestamp.nullable(),
  state: z.enum(['active', 'expired', 'revoked']),
  may_revoke: z.boolean(),
});
const grantListAnswer = z.object({ run_id: z.uuid(), grants: z.array(grantAnswer) });

function stateOf(grant: GrantRow, now: Date) {
  if (grant.revoked_at) return 'revoked' as const;
  return grant.expires_at && grant.expires_at <= now ? ('expired' as const) : ('active' as const);
}

/** A stored scope as the answer shows it: null for a scope of an older shape (covers nothing). */
function scopeView(scope: unknown) {
  if (!isGrantScope(scope)) return null;
  return { text: scopeText(scope), arguments: scope.arguments };
}

function grantView(grant: GrantRow, member: Member, now: Date) {
  const shown = seesArguments(grant, member, grant.invoked_by);
  const state = stateOf(grant, now);
  return {
    grant_id: grant.id,
    run_id: grant.run_id,
    tool: grant.tool,
    // Even a scope's kind says something of the call (a file tool on an absolute path).
    kind: shown && isGrantScope(grant.scope) ? grant.scope.kind : null,
    ...(shown ? { scope: scopeView(grant.scope) } : { scope_hidden: true as const }),
    rule_id: grant.rule_id,
    policy_version: grant.policy_version,
    session_id: grant.session_id,
    tool_call_id: grant.tool_call_id,
    granted_by: grant.granted_by,
    granted_by_name: grant.granted_by_name,
    created_at: grant.created_at,
    expires_at: grant.expires_at,
    revoked_at: grant.revoked_at,
    state,
    may_revoke: state === 'active' && mayDecide(grant, member),
  };
}

const tags = ['approvals'];
const config = { caller: 'member' } as const;

/** A run's standing approvals over the API: listed by its workspace's members, ended by deciders. */
export function grantRoutes(server: FastifyInstance, ctx: ApiContext) {
  const app = server.withTypeProvider<ZodTypeProvider>();

  app.get(
    '/v1/runs/:id/grants',
    {
      config,
      schema: {
        operationId: 'listRunGrants',
        summary: "A run's standing approvals, newest first; a scope only for who may read its call",
        tags,
        params: runGrantsParams,
        response: { 200: json('the grants', grantListAnswer) },
      },
    },
    async (request) => {
      const member = callerMember(request);
      const { id } = request.params;
      const listed = await listRunGrants(ctx.pool, { member, runId: id });
      if (listed.outcome === 'not_found') throw notFound(`run ${id}`);
      const now = new Date();
      return { run_id: id, grants: listed.grants.map((g) => grantView(g, member, now)) };
    },
  );

  app.delete(
    '/v1/runs/:id/grants/:grant_id',
    {
      config: { ...config, holds: 'writes' },
      schema: {
        operationId: 'revokeRunGrant',
        summary:
          'End a standing approval: the calls it covered ask again (idempotent; by who may decide them)',
        tags,
        params: runGrantParams,
        response: { 200: json('revoked, or already ended', grantAnswer) },
      },
    },
    async (request) => {
      const member = callerMember(request);
      const { id, grant_id } = request.params;
      const result = await revokeRunGrant(ctx.pool, { member, runId: id, grantId: grant_id });
      if (result.outcome === 'not_found') throw notFound(`grant ${grant_id}`);
      if (result.outcome === 'forbidden')
        throw new Problem(403, 'you may not revoke this grant: only who may decide its calls');
      const grant = (await grantsOfRun(ctx.pool, id)).find((g) => g.id === grant_id);
      if (!grant) throw notFound(`grant ${grant_id}`);
      return grantView(grant, member, new Date());
    },
  );
}
