import { createHmac } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import { hashToken, sameSecret, tokenKind } from '../application/tokens.js';
import { findMemberByTokenHash, type Member } from '../store/members.js';
import { findMemberByPersonalTokenHash } from '../store/personal-tokens.js';
import type { Pool } from '../store/pool.js';
import { findRunBySessionTokenHash, KnownRuns, type FrozenRun } from '../store/runs.js';
import { Problem } from './problem.js';

/** Who is calling: the operator, a runner (its run), or a workspace member. */
export type Principal =
  { kind: 'operator' } | { kind: 'runner'; run: FrozenRun } | { kind: 'user'; member: Member };

export const onlyTheOperator = 'only the operator may do this';

const unauthenticated = () =>
  new Problem(401, 'a valid "Authorization: Bearer <token>" header is required');

function bearerToken(request: FastifyRequest): string | undefined {
  const header = request.headers.authorization;
  if (!header) return undefined;
  const match = /^Bearer ([\x21-\x7e]{1,512})$/.exec(header);
  return match?.[1];
}

export class Authenticator {
  /** One look-up per request: the `onRequest` hook's answer serves the handler too. */
  private readonly known = new WeakMap<FastifyRequest, Promise<Principal>>();
  /** The frozen runs read here: a runner's every request reads only whether its run acts. */
  readonly runs = new KnownRuns();

  constructor(
    private readonly pool: Pool,
    private readonly operatorKey: string,
  ) {}

  principal(request: FastifyRequest): Promise<Principal> {
    let principal = this.known.get(request);
    if (!principal) {
      principal = this.lookUp(request);
      this.known.set(request, principal);
    }
    return principal;
  }

  private async lookUp(request: FastifyRequest): Promise<Principal> {
    const token = bearerToken(request);
    if (!token) throw unauthenticated();
    const kind = tokenKind(token);
    if (kind === 'session') {
      const run = await findRunBySessionTokenHash(this.pool, hashToken(token), this.runs);
      if (run) return { kind: 'runner', run };
    } else if (kind === 'user') {
      const member = await findMemberByTokenHash(this.pool, hashToken(token));
      if (member) return { kind: 'user', member };
    } else if (kind === 'personal') {
      // A person's own token acts as their membership until it is revoked or expires.
      const member = await findMemberByPersonalTokenHash(this.pool, hashToken(token));
      if (member) return { kind: 'user', member };
    } else if (sameSecret(token, this.operatorKey)) {
      return { kind: 'operator' };
    }
    throw unauthenticated();
  }

  /** Whether a presented secret is the operator key (the web sign-in takes it too). */
  isOperatorKey(secret: string): boolean {
    return sameSecret(secret, this.operatorKey);
  }

  /**
   * What an operator's web session stores to stay bound to the operator key it was opened with:
   * a new key ends it. Keyed by the session id, which is never stored, so a copy of the table
   * cannot test guesses of the key.
   */
  operatorKeyBinding(sessionId: string): Buffer {
    return createHmac('sha256', sessionId).update(this.operatorKey).digest();
  }

  async operator(request: FastifyRequest): Promise<void> {
    const principal = await this.principal(request);
    if (principal.kind !== 'operator') throw new Problem(403, onlyTheOperator);
  }
}
