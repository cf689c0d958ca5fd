import { randomBytes } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Member } from '../../store/members.js';
import type { Queryable } from '../../store/pool.js';
import type { ApiContext } from '../context.js';
import { hashToken } from '../tokens.js';
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

async function insertWebSession(db: Queryable, sessionId: string, memberId: string): Promise<void> {
  // Housekeeping on the way in: this member's expired sign-ins are of no further use.
  await db.query('delete from web_sessions where member_id = $1 and expires_at <= now()', [
    memberId,
  ]);
  await db.query(
    `insert into web_sessions (id_hash, member_id, expires_at)
     values ($1, $2, now() + make_interval(secs => $3))`,
    [hashToken(sessionId), memberId, sessionLifetimeS],
  );
}

/**
 * The member behind a session id, checked on every request: an expired session, or a member
 * suspended since signing in, finds nothing.
 */
export async function findWebSessionMember(
  db: Queryable,
  sessionId: string,
): Promise<Member | undefined> {
  const { rows } = await db.query<Member>(
    `select m.id, m.workspace_id, m.name, m.role, m.status
     from web_sessions s join members m on m.id = s.member_id
     where s.id_hash = $1 and s.expires_at > now() and m.status = 'active'`,
    [hashToken(sessionId)],
  );
  return rows[0];
}

async function deleteWebSession(db: Queryable, sessionId: string): Promise<void> {
  await db.query('delete from web_sessions where id_hash = $1', [hashToken(sessionId)]);
}

export async function signedIn(
  ctx: ApiContext,
  request: FastifyRequest,
): Promise<SignedIn | undefined> {
  const sessionId = readCookie(request, sessionCookie);
  if (!sessionId) return undefined;
  const member = await findWebSessionMember(ctx.pool, sessionId);
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
  if (previous) await deleteWebSession(ctx.pool, previous);
  const sessionId = 'fgw_' + randomBytes(32).toString('base64url');
  await insertWebSession(ctx.pool, sessionId, member.id);
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
  await deleteWebSession(ctx.pool, session.sessionId);
  clearCookie(reply, sessionCookie, overHttps(request, ctx.publicUrl));
}
