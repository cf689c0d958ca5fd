/**
 * A form post is admitted before its body is read (a route's `preValidation`): posted from our
 * own page, by a signed-in member, within their cap of writes when it changes something, with
 * their session's CSRF value when the form carries one. Otherwise nothing changes.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { callerKey } from '../caller-slots.js';
import type { ApiContext } from '../context.js';
import { Problem } from '../problem.js';
import { requireCsrf, requireSameOrigin } from './csrf.js';
import { formOf } from './form-body.js';
import { signedIn, type SignedIn } from './session.js';

export interface FormPostChecks {
  /** What a signed-out poster is told (401). */
  signedOut: string;
  /** Holds one of the member's write slots until answered. */
  writes: boolean;
  /** The form carries the session's CSRF value (a provider's callback form does not). */
  csrf: boolean;
}

/** The signed-in member each admitted post was checked as, for its handler. */
const posters = new WeakMap<FastifyRequest, SignedIn>();

/** A route's `preValidation` admitting its form posts with these checks. */
export function admitFormPost(ctx: ApiContext, checks: FormPostChecks) {
  return async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
    requireSameOrigin(request, ctx.publicUrl);
    const session = await signedIn(ctx, request);
    if (!session) throw new Problem(401, checks.signedOut);
    if (checks.writes) {
      ctx.slots.holdFor(reply.raw, 'writes', callerKey({ kind: 'user', member: session.member }));
    }
    if (checks.csrf) requireCsrf(formOf(request.body).csrf, session.csrf);
    posters.set(request, session);
  };
}

/** The signed-in member an admitted post was checked as. */
export function posterOf(request: FastifyRequest): SignedIn {
  const session = posters.get(request);
  if (!session) throw new Error(`${request.url}: a form post reached its handler unchecked`);
  return session;
}
