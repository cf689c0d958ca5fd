import { randomBytes } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Member } from '../../store/members.js';
import type { WebSessionHolder } from '../../store/web-sessions.js';
import {
  closeWebSession,
  openWebSession,
  webSessionHolder,
} from '../../application/web-sessions.js';
import type { ApiContext } from '../context.js';
import { clearCookie, readCookie, setCookie } from './cookies.js';
import { csrfTokenFor } from './csrf.js';
import { GateError } from '../../domain/errors.js';

const sessionCookie = 'fg_session';

/** A browser signed in, as of this request: a member, or the operator (for the codec only). */
export interface WebSession {
  holder: WebSessionHolder;
  /** Only for deriving the CSRF token and signing out; never logged or stored. */
  sessionId: string;
  csrf: string;
}

/** A member signed in through the browser: what every approvals page needs. */
export interface SignedIn extends WebSession {
  member: Member;
}

/**
 * The operator's web session reached a page for members. The operator is no member of any
 * workspace: its sign-in serves the Temporal UI's codec, and these pages say so.
 */
export class OperatorSessionError extends GateError {
  override name = 'OperatorSessionError';
  readonly code = 'operator_session';
  constructor(readonly session: WebSession) {
    super('the operator is signed in: approvals are for workspace members');
  }
}

/**
 * Whether cookies must be Secure: the request came over https, or approvers are told to use an
 * https URL (the API then sits behind a proxy that terminates TLS).
 */
export function overHttps(request: FastifyRequest, publicUrl: string): boolean {
  return request.protocol === 'https' || publicUrl.startsWith('https:');
}

/**
 * Who is behind a session id as of now, checked on every request: a session past its absolute
 * or idle lifetime, a member suspended since signing in (by the operator, or by their groups at
 * a later sign-in), or an operator session of an earlier operator key finds nothing. `renew`:
 * the request is the person's doing, so the idle lifetime starts again.
 */
function sessionHolder(
  ctx: ApiContext,
  sessionId: string,
  renew: boolean,
): Promise<WebSessionHolder | undefined> {
  return webSessionHolder(ctx.pool, sessionId, {
    operatorKeyBinding: ctx.auth.operatorKeyBinding(sessionId),
    idleS: ctx.web.sessionIdleS,
    renew,
  });
}

/**
 * The member behind a session id as of now, for a page's live stream checking on its own: it
 * renews nothing, so a page left open does not keep its session alive.
 */
export async function sessionMember(
  ctx: ApiContext,
  sessionId: string,
): Promise<Member | undefined> {
  const holder = await sessionHolder(ctx, sessionId, false);
  return holder?.kind === 'member' ? holder.member : undefined;
}

export async function webSession(
  ctx: ApiContext,
  request: FastifyRequest,
  renew = true,
): Promise<WebSession | undefined> {
  const sessionId = readCookie(request, sessionCookie);
  if (!sessionId) return undefined;
  const holder = await sessionHolder(ctx, sessionId, renew);
  return holder && { holder, sessionId, csrf: csrfTokenFor(sessionId) };
}

/**
 * The signed-in member; the operator's session is refused with a page that says why. `renew`
 * false: a request the page makes by itself (its live stream), which is no sign of the person.
 */
export async function signedIn(
  ctx: ApiContext,
  request: FastifyRequest,
  renew = true,
): Promise<SignedIn | undefined> {
  const session = await webSession(ctx, request, renew);
  if (!session) return undefined;
  if (session.holder.kind === 'operator') throw new OperatorSessionError(session);
  return { ...session, member: session.holder.member };
}

/** A fresh session id on every sign-in, so a session id planted before it is worth nothing. */
export async function startWebSession(
  ctx: ApiContext,
  request: FastifyRequest,
  reply: FastifyReply,
  holder: Member | 'operator',
): Promise<void> {
  const sessionId = 'fgw_' + randomBytes(32).toString('base64url');
  await openWebSession(ctx.pool, {
    id: sessionId,
    previousId: readCookie(request, sessionCookie),
    holder:
      holder === 'operator'
        ? { operatorKeyBinding: ctx.auth.operatorKeyBinding(sessionId) }
        : { memberId: holder.id },
    lifetimeS: ctx.web.sessionMaxS,
  });
  setCookie(reply, sessionCookie, sessionId, {
    maxAgeS: ctx.web.sessionMaxS,
    secure: overHttps(request, ctx.publicUrl),
  });
}

export async function endWebSession(
  ctx: ApiContext,
  request: FastifyRequest,
  reply: FastifyReply,
  session: WebSession,
): Promise<void> {
  await closeWebSession(ctx.pool, session.sessionId);
  clearCookie(reply, sessionCookie, overHttps(request, ctx.publicUrl));
}
