import {
  deleteWebSession,
  findWebSessionHolder,
  insertWebSession,
  type WebSessionHolder,
} from '../store/web-sessions.js';
import type { Pool } from '../store/pool.js';
import { hashToken } from './tokens.js';

/**
 * Browser sign-ins by their session id, which is stored only as a hash: opened at sign-in (in
 * place of the browser's previous one), checked and renewed on each request, closed at sign-out.
 */

/** A member by id, or the operator by the binding of the session to the operator key. */
type NewHolder = { memberId: string } | { operatorKeyBinding: Buffer };

/** Opens a session for its holder, ending the browser's previous one first if it had one. */
export async function openWebSession(
  pool: Pool,
  session: { id: string; previousId?: string; holder: NewHolder; lifetimeS: number },
): Promise<void> {
  if (session.previousId) await deleteWebSession(pool, hashToken(session.previousId));
  await insertWebSession(pool, hashToken(session.id), session.holder, session.lifetimeS);
}

/**
 * Who is behind a session id as of now; `renew` marks it used, so its idle lifetime starts
 * again. Nothing is found past its lifetimes, for a suspended member, or under another operator
 * key.
 */
export function webSessionHolder(
  pool: Pool,
  sessionId: string,
  check: { operatorKeyBinding: Buffer; idleS: number; renew: boolean },
): Promise<WebSessionHolder | undefined> {
  return findWebSessionHolder(
    pool,
    hashToken(sessionId),
    check.operatorKeyBinding,
    check.idleS,
    check.renew,
  );
}

export async function closeWebSession(pool: Pool, sessionId: string): Promise<void> {
  await deleteWebSession(pool, hashToken(sessionId));
}
