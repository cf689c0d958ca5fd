/**
 * Who reaches a web route, checked once for every route of the web pages' scope (`admitVisitors`,
 * a `preValidation` hook, before a body or query is read), so that no handler reads the session
 * itself and no route can leave it out. A route declares its caller, `browser` or `anyone`, and
 * in `config.web` only what differs from the usual:
 * - a page (GET) is for a signed-in member; a signed-out visitor is sent to sign in and brought
 *   back, or, with `signedOut`, answered 401 (a page's script);
 * - a form post comes from our own page, from a signed-in member, within their cap of writes,
 *   with their session's CSRF value. Otherwise nothing changes.
 * The handler reads the session it was admitted with by `visitorOf`.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { callerKey } from '../caller-slots.js';
import type { ApiContext } from '../context.js';
import { Problem } from '../problem.js';
import { empty } from '../route-schemas.js';
import { requireCsrf, requireSameOrigin } from './csrf.js';
import { formOf } from './form-body.js';
import { signedIn, type SignedIn } from './session.js';

/** What a `browser` route's admission differs in from the usual page or form post. */
export interface WebAdmission {
  /** What a signed-out visitor is told (401) instead of being sent to sign in. */
  signedOut?: string;
  /** A page's own request (its live stream): it leaves the idle limit running. */
  renews?: false;
  /** A form post that changes nothing of the member's: it holds none of their write slots. */
  writes?: false;
  /** A form the session's CSRF value is not in (a provider's callback). */
  csrf?: false;
  /**
   * Any visitor, signed in or not, the operator included (a provider's callback, signing out):
   * the handler checks the session it finds. A post still comes from our own page.
   */
  anyVisitor?: true;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** How a web page or form admits its visitor, where it differs from the usual. */
    web?: WebAdmission;
  }
}

/** What a signed-out form poster is told unless the route says otherwise. */
const signedOutPoster = 'your sign-in has ended; sign in and try again';

/** The session each admitted request was checked with, for its handler. */
const visitors = new WeakMap<FastifyRequest, SignedIn>();

/** A page's answer to a signed-out visitor, as the document names it. */
export const toLoginAnswer = empty('signed out: to the sign-in page, and back here after it');

async function admitPage(
  ctx: ApiContext,
  admission: WebAdmission,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<void> {
  if (admission.anyVisitor) return;
  const session = await signedIn(ctx, request, admission.renews ?? true);
  if (session) {
    visitors.set(request, session);
    return;
  }
  if (admission.signedOut !== undefined) throw new Problem(401, admission.signedOut);
  const path = request.url.split('?')[0] ?? '/';
  await reply.redirect(`/login?next=${encodeURIComponent(path)}`, 303);
}

async function admitFormPost(
  ctx: ApiContext,
  admission: WebAdmission,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<void> {
  requireSameOrigin(request, ctx.publicUrl);
  if (admission.anyVisitor) return;
  const session = await signedIn(ctx, request);
  if (!session) throw new Problem(401, admission.signedOut ?? signedOutPoster);
  if (admission.writes ?? true) {
    ctx.slots.holdFor(reply.raw, 'writes', callerKey({ kind: 'user', member: session.member }));
  }
  if (admission.csrf ?? true) requireCsrf(formOf(request.body).csrf, session.csrf);
  visitors.set(request, session);
}

/**
 * Admits the visitors of every route registered on `web`, by the route's declaration: a route
 * that declares neither `browser` nor `anyone` as its caller is refused when it is registered.
 */
export function admitVisitors(web: FastifyInstance, ctx: ApiContext): void {
  web.addHook('onRoute', (route) => {
    const caller = route.config?.caller;
    if (caller !== 'browser' && caller !== 'anyone') {
      throw new Error(`${route.url}: a web route's caller is browser or anyone, not ${caller}`);
    }
  });
  web.addHook('preValidation', async (request, reply) => {
    const { caller, web: admission = {} } = request.routeOptions.config;
    if (caller === 'anyone') return;
    const read = request.method === 'GET' || request.method === 'HEAD';
    await (read ? admitPage : admitFormPost)(ctx, admission, request, reply);
  });
}

/** The signed-in member's session an admitted request was checked with. */
export function visitorOf(request: FastifyRequest): SignedIn {
  const session = visitors.get(request);
  if (!session) throw new Error(`${request.url}: a web request reached its handler unadmitted`);
  return session;
}
