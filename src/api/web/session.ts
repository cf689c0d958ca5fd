import { randomBytes } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Member } from '../../store/members.js';
import {
  deleteWebSession,
  findWebSessionMember,
  insertWebSession,
} from '../../store/web-sessions.js';
import type { ApiContext } from '../context.js';
import { hashToken } from '../../application/tokens.js';
import { clearCookie, readCookie, setCookie } from './cookies.js';
import { csrfTokenFor } from './csrf.js';

export const sessionCookie = 'fg_session';
/** A sign-in lasts a working day; after that the member pastes their token again. */
export const sessionLifetimeS = 8 * 3600;

/** A member signed in through the browser, as of this request. */
export interface SignedIn {
  member: Member;
  /** Only for deriving the CSRF token and signing out; never logged or stored. */
  sessionId: string;
  csrf: string;
}

/**
 * Whether cookies must be Secure: the request came over https, or approvers are told to use an
 * https URL (the API then sits behind a proxy that terminates TLS).
 */
export function overHttps(request: FastifyRequest, publicUrl: string): boolean {
  return request.protocol === 'https' || publicUrl.startsWith('https:');
}

/**
 * The member behind a session id as of now, checked on every request: an expired session, or a
 * member suspended since signing in, finds nothing.
 */
export function sessionMember(ctx: ApiContext, sessionId: string): Promise<Member | undefined> {
  return findWebSessionMember(ctx.pool, hashToken(sessionId));
}

export async function signedIn(
  ctx: ApiContext,
  request: FastifyRequest,
): Promise<SignedIn | undefined> {
  const sessionId = readCookie(request, sessionCookie);
  if (!sessionId) return undefined;
  const member = await sessionMember(ctx, sessionId);
  return member && { member, sessionId, csrf: csrfTokenFor(sessionId) };
}

/** A fresh session id on every sign-in, so a session id planted before it is worth nothing. */
export async function startWebSession(
  ctx: ApiContext,
  request: FastifyRequest,
  reply: FastifyReply,
  member: Member,
): Promise<void> {
  const previous = readCookie(request, sessionCookie);
  if (previous) await deleteWebSession(ctx.pool, hashToken(previous));
  const sessionId = 'fgw_' + randomBytes(32).toString('base64url');
  await insertWebSession(ctx.pool, hashToken(sessionId), member.id, sessionLifetimeS);
  setCookie(reply, sessionCookie, sessionId, {
    maxAgeS: sessionLifetimeS,
    secure: overHttps(request, ctx.publicUrl),
  });
}

export async function endWebSession(
  ctx: ApiContext,
  request: FastifyRequest,
  reply: FastifyReply,
  session: SignedIn,
): Promise<void> {
  await deleteWebSession(ctx.pool, hashToken(session.sessionId));
  clearCookie(reply, sessionCookie, overHttps(request, ctx.publicUrl));
}
