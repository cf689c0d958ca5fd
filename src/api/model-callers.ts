import type { FastifyReply, FastifyRequest } from 'fastify';
import { hashToken, tokenKind } from '../application/tokens.js';
import {
  findModelProvider,
  type ModelProviderKind,
  type ModelProviderRow,
} from '../store/queries/model-providers.js';
import { findRunBySessionTokenHash, type FrozenRun } from '../store/queries/runs.js';
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

/** The run and its provider, which must speak the endpoint's API (`kind`). */
export async function modelAccessOf(
  ctx: ApiContext,
  request: FastifyRequest,
  kind: ModelProviderKind,
): Promise<ModelAccess | ModelAccessRefusal> {
  const token = presentedToken(request);
  if (token === undefined || token.length > 512 || tokenKind(token) !== 'session') {
    return {
      kind: 'unauthenticated',
      message: "a run's session token is required as the API key (x-api-key or a Bearer token)",
    };
  }
  const run = await findRunBySessionTokenHash(ctx.pool, hashToken(token));
  if (!run) return { kind: 'unauthenticated', message: 'the session token is not valid' };
  const provider = run.model_provider_id
    ? await findModelProvider(ctx.pool, run.model_provider_id)
    : undefined;
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
  return { run, provider };
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
