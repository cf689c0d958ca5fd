import { ServiceError } from '@temporalio/client';
import type { FastifyError } from 'fastify';
import {
  BudgetExhaustedError,
  ConflictError,
  ForbiddenError,
  InvalidInputError,
  NotFoundError,
  UnavailableError,
} from '../domain/errors.js';
import { DecisionNotRecordedError } from '../application/decide-approval.js';
import { ReauthorizationNeededError } from '../application/oauth-connections.js';
import { OAuthFlowError } from '../broker/oauth-client.js';
import { PhotographError } from '../broker/photograph-error.js';
import { isUnavailableError } from '../store/pool.js';
import { Problem } from './problem.js';

const budgetExhaustedType = 'https://fluidbox.dev/problems/budget-exhausted';

/** A refused use case: each refusal has one status, and field errors name body fields. */
function useCaseProblem(err: Error): Problem | undefined {
  if (err instanceof NotFoundError) return new Problem(404, err.message);
  if (err instanceof ForbiddenError) return new Problem(403, err.message);
  if (err instanceof InvalidInputError) {
    const errors = err.errors.map((e) => ({ path: `body.${e.path}`, message: e.message }));
    return new Problem(400, err.message, errors.length > 0 ? { errors } : {});
  }
  if (err instanceof ConflictError) return new Problem(409, err.message, { extra: err.details });
  if (err instanceof BudgetExhaustedError) {
    return new Problem(402, err.message, { type: budgetExhaustedType, extra: err.details });
  }
  if (err instanceof UnavailableError || err instanceof DecisionNotRecordedError) {
    return new Problem(503, err.message);
  }
  return undefined;
}

/** An MCP server that cannot be photographed is the caller's to fix: never a 500. */
function photographProblem(err: PhotographError): Problem {
  return new Problem(
    err.code === 'invalid_request' ? 400 : 502,
    `the MCP server could not be photographed (${err.code}): ${err.message}`,
    { type: `https://fluidbox.dev/problems/upstream-${err.code.replace(/_/g, '-')}` },
  );
}

/** Fastify's own client errors (a body that is not JSON, too large) keep their 4xx. */
function clientProblem(err: Partial<FastifyError>): Problem | undefined {
  const status = err.statusCode;
  if (typeof status !== 'number' || status < 400 || status >= 500) return undefined;
  if (err.code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
    return new Problem(413, `the body is larger than this endpoint accepts (${err.message ?? ''})`);
  }
  return new Problem(status, err.message ?? 'bad request');
}

/**
 * The one mapping from any error to a problem: a client's fault keeps its 4xx, a dependency
 * that is down is a 503, and only what nobody foresaw is a 500.
 */
export function problemFor(err: unknown): Problem {
  if (err instanceof Problem) return err;
  if (err instanceof Error) {
    const refused = useCaseProblem(err);
    if (refused) return refused;
  }
  if (err instanceof PhotographError) return photographProblem(err);
  // The authorization server's fault or the owner's to mend: never a 500.
  if (err instanceof OAuthFlowError) {
    return new Problem(502, err.message, { type: 'https://fluidbox.dev/problems/upstream-oauth' });
  }
  if (err instanceof ReauthorizationNeededError) return new Problem(409, err.message);
  const client = clientProblem(err as Partial<FastifyError>);
  if (client) return client;
  if (isUnavailableError(err)) {
    return new Problem(503, 'PostgreSQL is unavailable; try again shortly');
  }
  if (err instanceof ServiceError) {
    return new Problem(503, 'Temporal is unavailable; try again shortly');
  }
  return new Problem(500, 'an internal error occurred');
}
