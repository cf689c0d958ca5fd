import { ServiceError } from '@temporalio/client';
import type { FastifyError } from 'fastify';
import {
  type InvalidInputError,
  type BudgetExhaustedError,
  type ConflictError,
  type UseCaseCode,
} from '../domain/errors.js';
import { DecisionNotRecordedError } from '../application/decide-approval.js';
import { ReauthorizationNeededError } from '../application/oauth-connections.js';
import { OAuthFlowError } from '../broker/oauth-client.js';
import { PhotographError } from '../broker/photograph-error.js';
import { isUnavailableError } from '../store/queries/database.js';
import { Problem } from './problem.js';

const budgetExhaustedType = 'https://fluidbox.dev/problems/budget-exhausted';

/** Each refusal's status, by its stable code (src/domain/errors.ts). */
const statusByCode: Record<UseCaseCode, number> = {
  not_found: 404,
  forbidden: 403,
  invalid_input: 400,
  conflict: 409,
  budget_exhausted: 402,
  unavailable: 503,
  still_evaluating: 503,
};

const isUseCaseCode = (code: unknown): code is UseCaseCode =>
  typeof code === 'string' && Object.hasOwn(statusByCode, code);

/** A refused use case: each refusal has one status, and field errors name body fields. */
function useCaseProblem(err: Error): Problem | undefined {
  if (err instanceof DecisionNotRecordedError) return new Problem(503, err.message);
  const { code } = err as { code?: unknown };
  if (!isUseCaseCode(code)) return undefined;
  const status = statusByCode[code];
  if (code === 'invalid_input') {
    const fields = (err as unknown as Partial<Pick<InvalidInputError, 'errors'>>).errors ?? [];
    const errors = fields.map((e) => ({ path: `body.${e.path}`, message: e.message }));
    return new Problem(status, err.message, errors.length > 0 ? { errors } : {});
  }
  if (code === 'conflict') {
    return new Problem(status, err.message, {
      extra: (err as unknown as Pick<ConflictError, 'details'>).details,
    });
  }
  if (code === 'budget_exhausted') {
    const { details } = err as unknown as Pick<BudgetExhaustedError, 'details'>;
    return new Problem(status, err.message, { type: budgetExhaustedType, extra: details });
  }
  return new Problem(status, err.message);
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
