/**
 * Who reaches a web route, checked in the route's `preValidation`, before its body or query is
 * read, so that no handler reads the session itself:
 * - a page (`admitPage`) is for a signed-in member; a signed-out visitor is sent to sign in and
 *   brought back, or, where a script asks, answered 401;
 * - a form post (`admitFormPost`) comes from our own page, from a signed-in member, within their
 *   cap of writes when it changes something, with their session's CSRF value when the form
 *   carries one. Otherwise nothing changes.
 * The handler reads the session it was admitted with by `visitorOf`.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { callerKey } from '../caller-slots.js';
import type { ApiContext } from '../context.js';
import { Problem } from '../problem.js';
import { empty } from '../route-schemas.js';
import { requireCsrf, requireSameOrigin } from './csrf.js';
import { formOf } from './form-body.js';
import { signedIn, type SignedIn } from './session.js';

interface FormPostChecks {
  /** What a signed-out poster is told (401). */
  signedOut: string;
  /** Holds one of the member's write slots until answered. */
  writes: boolean;
  /** The form carries the session's CSRF value (a provider's callback form does not). */
  csrf: boolean;
}

/** The session each admitted request was checked with, for its handler. */
const visitors = new WeakMap<FastifyRequest, SignedIn>();

/** A page's answer to a signed-out visitor, as the document names it. */
export const toLoginAnswer = empty('signed out: to the sign-in page, and back here after it');

/**
 * A route's `preValidation` admitting signed-in members to a page. A signed-out visitor is sent
 * to sign in and back to this page; with `signedOut`, told that instead (401), for a page's script.
 * `renews: false`: the page's own requests (its live stream), which leave the idle limit running.
 */
export function admitPage(ctx: ApiContext, signedOut?: string, options = { renews: true }) {
  return async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
    const session = await signedIn(ctx, request, options.renews);
    if (session) {
      visitors.set(request, session);
      return;
    }
    if (signedOut !== undefined) throw new Problem(401, signedOut);
    const path = request.url.split('?')[0] ?? '/';
    await reply.redirect(`/login?next=${encodeURIComponent(path)}`, 303);
  };
}

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
    visitors.set(request, session);
  };
}

/** The signed-in member's session an admitted request was checked with. */
export function visitorOf(request: FastifyRequest): SignedIn {
  const session = visitors.get(request);
  if (!session) throw new Error(`${request.url}: a web request reached its handler unadmitted`);
  return session;
}
