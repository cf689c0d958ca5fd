import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { hashToken, tokenKind } from '../application/tokens.js';
import { findModelCallerBySessionTokenHash } from '../store/queries/model-callers.js';
import type { ModelProviderKind, ModelProviderRow } from '../store/queries/model-providers.js';
import type { FrozenRun } from '../store/queries/runs.js';
import { callerKey } from './caller-slots.js';
import type { ApiContext } from './context.js';
import { Problem } from './problem.js';

/**
 * Who calls a model endpoint of the gate: a run, by its session token as the API key, reaching
 * the model provider frozen with it. Each endpoint (Anthropic's, OpenAI's) words the refusals in
 * its own API's shape.
 */

export interface ModelAccess {
  run: FrozenRun;
  provider: ModelProviderRow;
  /** The prices' epoch as the caller's read found it: prices kept at it are not read again. */
  priceEpoch: number;
}

type ModelAccessRefusal =
  { kind: 'unauthenticated'; message: string } | { kind: 'forbidden'; message: string };

/** `x-api-key`, as the SDKs send an API key, or `Authorization: Bearer`, as they send a token. */
function presentedToken(request: FastifyRequest): string | undefined {
  const apiKey = request.headers['x-api-key'];
  const bearer = /^Bearer (\S+)$/.exec(request.headers.authorization ?? '')?.[1];
  const key = typeof apiKey === 'string' ? apiKey : undefined;
  if (key !== undefined && bearer !== undefined && key !== bearer) return undefined;
  return key ?? bearer;
}

/** The hash of the run's session token the request presents, if it presents one. */
function presentedSessionTokenHash(request: FastifyRequest): Buffer | undefined {
  const token = presentedToken(request);
  if (token === undefined || token.length > 512 || tokenKind(token) !== 'session') return undefined;
  return hashToken(token);
}

const noSessionToken =
  "a run's session token is required as the API key (x-api-key or a Bearer token)";

/** The run and its provider, which must speak the endpoint's API (`kind`). */
async function modelAccessOf(
  ctx: ApiContext,
  tokenHash: Buffer,
  kind: ModelProviderKind,
): Promise<ModelAccess | ModelAccessRefusal> {
  const caller = await findModelCallerBySessionTokenHash(ctx.pool, tokenHash, ctx.auth.runs);
  if (!caller) return { kind: 'unauthenticated', message: 'the session token is not valid' };
  const { run, provider, priceEpoch } = caller;
  if (!provider) {
    return {
      kind: 'forbidden',
      message: `run ${run.id} has no model provider: create the run with model_provider to reach a model through the gate`,
    };
  }
  if (provider.removed_at) {
    return {
      kind: 'forbidden',
      message: `the model provider of run ${run.id} (${provider.name}) was removed by the operator: this run reaches no model any more`,
    };
  }
  if (provider.kind !== kind) {
    return {
      kind: 'forbidden',
      message: `the model provider of run ${run.id} (${provider.name}) speaks the ${provider.kind} API: use the gate's /${provider.kind} endpoint`,
    };
  }
  return { run, provider, priceEpoch };
}

/**
 * One run's model requests in flight are capped (see caller-slots.ts), taken before the body is
 * read and given back when the answer closes. Past the cap: a message for a rate-limit error.
 */
export function holdModelSlot(
  ctx: ApiContext,
  reply: FastifyReply,
  run: FrozenRun,
): { limited: string } | undefined {
  try {
    ctx.slots.holdFor(reply.raw, 'model', callerKey({ kind: 'runner', run }));
    return undefined;
  } catch (err) {
    if (err instanceof Problem && err.status === 429) return { limited: err.message };
    throw err;
  }
}

/** A model endpoint's error, answered in its own API's shape. */
interface WireError extends Error {
  status: number;
  headers(): Record<string, string>;
  body(): unknown;
}

/** How one model endpoint words what every model endpoint refuses. */
export interface ModelEndpointWording {
  kind: ModelProviderKind;
  errorOf(err: unknown): WireError;
  unauthenticated(message: string): WireError;
  forbidden(message: string): WireError;
  notFound(methodAndPath: string): WireError;
  limited(message: string): WireError;
}

/**
 * What every model endpoint's scope shares: the body kept as bytes (parsed once, by admission,
 * and forwarded as it came), errors in the endpoint's API's shape, and the run's token checked
 * and its slot held before the body is read (an unauthenticated caller's 16 MiB is never read).
 *
 * A token this process has already found acting for a run with a model provider (`KnownRuns`)
 * is read again (whether its run still acts, its provider, the prices' epoch) while the body
 * arrives and is parsed, and the handler awaits that read before it uses either: one round trip
 * off a model request's time to its first byte. Every answer of the scope waits for the read
 * first, so a caller the read refuses is answered as refused, whatever its body, and only a token
 * that was valid for a model's run gets its body read before it is known still to be: a revoked
 * run's token is kept no more once refused.
 * Returns how a handler reads the request's run and provider.
 */
export function modelEndpointScope(
  scope: FastifyInstance,
  ctx: ApiContext,
  wording: ModelEndpointWording,
): (request: FastifyRequest) => Promise<ModelAccess> {
  const accessByRequest = new WeakMap<FastifyRequest, Promise<ModelAccess>>();
  /** Whatever error the caller's read ended in, once it ends; nothing when it found the caller. */
  const refusalOf = (request: FastifyRequest): Promise<unknown> =>
    accessByRequest.get(request)?.then(
      () => undefined,
      (err: unknown) => err,
    ) ?? Promise.resolve(undefined);
  const accessFor = async (tokenHash: Buffer): Promise<ModelAccess> => {
    const access = await modelAccessOf(ctx, tokenHash, wording.kind);
    if ('run' in access) return access;
    throw access.kind === 'unauthenticated'
      ? wording.unauthenticated(access.message)
      : wording.forbidden(access.message);
  };
  scope.removeAllContentTypeParsers();
  scope.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => {
    done(null, body);
  });
  scope.setErrorHandler(async (thrown, request, reply) => {
    const err = (await refusalOf(request)) ?? thrown;
    const error = wording.errorOf(err);
    // What nobody foresaw is an error; a dependency away (503) or an upstream's fault, a warning.
    if (error.status === 500) request.log.error({ err }, 'model request failed');
    else if (error.status > 500) request.log.warn({ err }, 'model request failed');
    return reply.code(error.status).headers(error.headers()).send(error.body());
  });
  scope.setNotFoundHandler(async (request, reply) => {
    // A refused caller is answered as refused (by the error handler), not told what is missing.
    await accessByRequest.get(request);
    const error = wording.notFound(`${request.method} ${request.url.split('?')[0] ?? ''}`);
    return reply.code(404).headers(error.headers()).send(error.body());
  });
  scope.addHook('onRequest', async (request, reply) => {
    const tokenHash = presentedSessionTokenHash(request);
    if (!tokenHash) throw wording.unauthenticated(noSessionToken);
    // Only a run with a model provider goes on before its read: any other is refused by it.
    const kept = ctx.auth.runs.get(tokenHash);
    const ahead = kept?.model_provider_id ? kept : undefined;
    const access = accessFor(tokenHash);
    // Awaited by whatever answers the request; marked handled for a client gone before that.
    void access.catch(() => undefined);
    accessByRequest.set(request, access);
    const slot = holdModelSlot(ctx, reply, ahead ?? (await access).run);
    if (slot) throw wording.limited(slot.limited);
  });
  return (request) =>
    accessByRequest.get(request) ?? Promise.reject(wording.unauthenticated(noSessionToken));
}
