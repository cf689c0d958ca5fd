/**
 * Who may call a route, declared on the route (`config: { caller }`) and checked in Fastify's
 * hooks, never by hand in a handler: the credential before the body is read (401, then 403 for
 * the wrong kind of caller), a runner's session once the path is validated (404: another
 * session's token learns nothing). The principal found is left on the request for the handler.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Member } from '../store/members.js';
import type { FrozenRun } from '../store/runs.js';
import { onlyTheOperator, type Authenticator, type Principal } from './auth.js';
import type { SlotKind } from './caller-slots.js';
import { Problem } from './problem.js';

/**
 * The API's bearer principals (`operator`; a session's `runner`; an active workspace `member`;
 * a `reader` of a session or run, its runner or the operator; a run's `revoker`, the operator or
 * a member; an `admin`, the operator or an active admin of their own workspace), the model
 * endpoint's key, a browser's web session, the codec's operator, a workspace's identity provider
 * (its SCIM token, checked by the SCIM routes), or anyone.
 */
export type Caller =
  | 'operator'
  | 'runner'
  | 'member'
  | 'reader'
  | 'revoker'
  | 'admin'
  | 'model_key'
  | 'browser'
  | 'codec'
  | 'scim'
  | 'anyone';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Who may call the route: checked in the hooks below, shown in the OpenAPI document. */
    caller?: Caller;
    /** The caller's slot a request of this route holds until it is answered (capped per caller). */
    holds?: SlotKind;
  }
  interface FastifyRequest {
    /** The bearer principal the route's caller check admitted; undefined on other routes. */
    principal: Principal | undefined;
  }
}

type BearerCaller = 'operator' | 'runner' | 'member' | 'reader' | 'revoker' | 'admin';

/** What each bearer caller refuses, by the kind of principal presented (403). */
const refusals: Record<BearerCaller, (principal: Principal) => string | undefined> = {
  operator: (p) => (p.kind === 'operator' ? undefined : onlyTheOperator),
  runner: (p) => (p.kind === 'runner' ? undefined : "only the session's runner may do this"),
  member: (p) => {
    if (p.kind !== 'user')
      return 'approvals are decided by workspace members; this credential decides nothing';
    // A suspended member sees nothing, not even that an approval exists.
    return p.member.status === 'active' ? undefined : 'this membership is suspended';
  },
  // A member is refused once the path is read: for a session, as if it did not exist.
  reader: () => undefined,
  revoker: (p) =>
    p.kind === 'runner' ? "only the run's invoker or the operator may revoke it" : undefined,
  admin: (p) =>
    p.kind === 'operator' || (p.kind === 'user' && isActiveAdmin(p.member))
      ? undefined
      : 'only the operator, or an admin of the workspace, may do this',
};

function isActiveAdmin(member: Member): boolean {
  return member.role === 'admin' && member.status === 'active';
}

function bearerCaller(caller: Caller | undefined): caller is BearerCaller {
  return caller !== undefined && caller in refusals;
}

/**
 * A runner reaches its own session only, and a member reads no session: another session's
 * token learns nothing, a 404 as for no session. The path's session id is read once validated.
 */
function requireOwnSession(request: FastifyRequest, caller: BearerCaller): void {
  const principal = request.principal;
  const sessionId = (request.params as { session_id?: string }).session_id;
  if (principal === undefined || sessionId === undefined) return;
  const foreign =
    principal.kind === 'runner'
      ? principal.run.session_id !== sessionId
      : principal.kind === 'user' && caller === 'reader';
  if (foreign) throw new Problem(404, `session ${sessionId} does not exist`);
}

export function checkCallers(app: FastifyInstance, auth: Authenticator): void {
  app.decorateRequest('principal', undefined);
  app.addHook('onRequest', async (request) => {
    const caller = request.routeOptions.config.caller;
    if (!bearerCaller(caller)) return;
    const principal = await auth.principal(request);
    const refusal = refusals[caller](principal);
    if (refusal !== undefined) throw new Problem(403, refusal);
    request.principal = principal;
  });
  app.addHook('preHandler', (request, _reply, done) => {
    const caller = request.routeOptions.config.caller;
    if (bearerCaller(caller)) requireOwnSession(request, caller);
    done();
  });
}

function admitted(request: FastifyRequest): Principal {
  if (!request.principal) throw new Error(`${request.url}: the route declares no bearer caller`);
  return request.principal;
}

/** The run of a `runner` route's caller (its session already matched). */
export function callerRun(request: FastifyRequest): FrozenRun {
  const principal = admitted(request);
  if (principal.kind !== 'runner') throw new Error(`${request.url}: the caller is no runner`);
  return principal.run;
}

/** The active member calling a `member` route. */
export function callerMember(request: FastifyRequest): Member {
  const principal = admitted(request);
  if (principal.kind !== 'user') throw new Error(`${request.url}: the caller is no member`);
  return principal.member;
}

/** The principal calling a `reader` or `revoker` route. */
export function callerPrincipal(request: FastifyRequest): Principal {
  return admitted(request);
}

/** An `admin` route's member: an admin of their own workspace; undefined for the operator. */
export function callerAdmin(request: FastifyRequest): { member?: Member } {
  const principal = admitted(request);
  return principal.kind === 'user' ? { member: principal.member } : {};
}

/** An `admin` route's reach: every workspace for the operator (undefined), an admin's own. */
export function callerWorkspace(request: FastifyRequest): { workspace?: string } {
  const principal = admitted(request);
  return principal.kind === 'user' ? { workspace: principal.member.workspace_id } : {};
}
