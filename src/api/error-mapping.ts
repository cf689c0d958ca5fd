import { NamespaceNotFoundError, ServiceError } from '@temporalio/client';
import type { FastifyError } from 'fastify';
import {
  isGateError,
  type BudgetExhaustedError,
  type ConflictError,
  type GateError,
  type InvalidInputError,
} from '../domain/errors.js';
import { isTransientConflict, isUnavailableError } from '../store/queries/database.js';
import { Problem } from './problem.js';

const budgetExhaustedType = 'https://fluidbox.dev/problems/budget-exhausted';

const refusal = (status: number) => (err: GateError) => new Problem(status, err.message);

/** An MCP server that cannot be photographed is the caller's to fix: never a 500. */
const photographFailure = (status: number) => (err: GateError) =>
  new Problem(status, `the MCP server could not be photographed (${err.code}): ${err.message}`, {
    type: `https://fluidbox.dev/problems/upstream-${err.code.replace(/_/g, '-')}`,
  });

/**
 * The API's answer to each code of the error family (src/domain/errors.ts): one status and one
 * shape per code. A code not here was not meant to reach a caller, and is a 500.
 */
const problemByCode: Record<string, ((err: GateError) => Problem) | undefined> = {
  not_found: refusal(404),
  forbidden: refusal(403),
  // Field errors name their place in the body.
  invalid_input: (err) => {
    const fields = (err as Partial<Pick<InvalidInputError, 'errors'>>).errors ?? [];
    const errors = fields.map((e) => ({ path: `body.${e.path}`, message: e.message }));
    return new Problem(400, err.message, errors.length > 0 ? { errors } : {});
  },
  conflict: (err) =>
    new Problem(409, err.message, {
      extra: (err as unknown as Pick<ConflictError, 'details'>).details,
    }),
  budget_exhausted: (err) =>
    new Problem(402, err.message, {
      type: budgetExhaustedType,
      extra: (err as unknown as Pick<BudgetExhaustedError, 'details'>).details,
    }),
  unavailable: refusal(503),
  still_evaluating: refusal(503),
  decision_not_recorded: refusal(503),
  reauthorization_needed: refusal(409),
  // The authorization server's fault or the owner's to mend: never a 500.
  oauth_flow_failed: (err) =>
    new Problem(502, err.message, { type: 'https://fluidbox.dev/problems/upstream-oauth' }),
  invalid_request: photographFailure(400),
  unreachable: photographFailure(502),
  refused_address: photographFailure(502),
  unauthorized: photographFailure(502),
  timeout: photographFailure(502),
  too_large: photographFailure(502),
  redirected: photographFailure(502),
  protocol: photographFailure(502),
};

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
  if (isGateError(err)) {
    const problem = problemByCode[err.code];
    if (problem) return problem(err);
  }
  const client = clientProblem(err as Partial<FastifyError>);
  if (client) return client;
  if (isUnavailableError(err)) {
    return new Problem(503, 'PostgreSQL is unavailable; try again shortly');
  }
  // Tried again already (withTransaction); still meeting another writer, the caller sends it again.
  if (isTransientConflict(err)) {
    return new Problem(503, 'a concurrent change met this one; try again shortly');
  }
  // A Temporal that does not know the gate's namespace (lost it, or the wrong one) is away too.
  if (err instanceof ServiceError || err instanceof NamespaceNotFoundError) {
    return new Problem(503, 'Temporal is unavailable; try again shortly');
  }
  return new Problem(500, 'an internal error occurred');
}
