/**
 * Why a use case refused, as classes a caller can branch on, on the bottom floor so that every
 * floor may throw them. The API maps each to one HTTP status (src/api/error-mapping.ts); the
 * web form shows the same status and detail as a page.
 */

/** One failing field of a request: where it is and what is wrong with it. */
export interface FieldError {
  path: string;
  message: string;
}

/**
 * Each refusal's stable code: what a caller branches on, and what the API maps to a status in
 * one table (`instanceof` is not trusted across module copies, codes are).
 */
export type UseCaseCode =
  | 'not_found'
  | 'forbidden'
  | 'invalid_input'
  | 'conflict'
  | 'budget_exhausted'
  | 'unavailable'
  | 'still_evaluating';

/** How a member of the family is told from any other error, across copies of this module. */
const family = Symbol.for('fluidbox.gate-error');

/**
 * The one family of the gate's own errors: each kind a subclass with a stable `code` a caller
 * branches on (and the API maps to a status, src/api/error-mapping.ts). Errors of the protocols
 * the gate speaks for others (OAuth, SCIM, the model APIs) keep those protocols' own codes.
 */
export abstract class GateError extends Error {
  abstract readonly code: string;
  readonly [family] = true;
}

/** Whether `err` is one of the family's, whichever copy of this module made it. */
export function isGateError(err: unknown): err is GateError {
  return err instanceof Error && (err as Partial<Record<typeof family, boolean>>)[family] === true;
}

abstract class UseCaseError extends GateError {
  abstract override readonly code: UseCaseCode;
}

/** Something named does not exist, or the caller may not know that it does. */
export class NotFoundError extends UseCaseError {
  override name = 'NotFoundError';
  readonly code: UseCaseCode = 'not_found';
  constructor(what: string) {
    super(`${what} does not exist`);
  }
}

/** The caller is known but may not do this. */
export class ForbiddenError extends UseCaseError {
  override name = 'ForbiddenError';
  readonly code: UseCaseCode = 'forbidden';
}

/** The request is well-formed but its values cannot be used; `errors` names each field. */
export class InvalidInputError extends UseCaseError {
  override name = 'InvalidInputError';
  readonly code: UseCaseCode = 'invalid_input';
  constructor(
    message: string,
    readonly errors: FieldError[] = [],
  ) {
    super(message);
  }
}

/** The request clashes with what is recorded (an id reused with another body, a name taken). */
export class ConflictError extends UseCaseError {
  override name = 'ConflictError';
  readonly code: UseCaseCode = 'conflict';
  constructor(
    message: string,
    /** What the caller may rely on instead, shown beside the message. */
    readonly details: Record<string, unknown> = {},
  ) {
    super(message);
  }
}

/** The run's token allowance cannot cover this model request now. */
export class BudgetExhaustedError extends UseCaseError {
  override name = 'BudgetExhaustedError';
  readonly code: UseCaseCode = 'budget_exhausted';
  constructor(
    message: string,
    readonly details: {
      request_id: string;
      booked_tokens: number;
      booked_usd?: string;
      /** The level that refused, as `team "payments", month`. */
      level?: string;
    },
  ) {
    super(message);
  }
}

/** A dependency could not answer in time; the same request may be sent again. */
export class UnavailableError extends UseCaseError {
  override name = 'UnavailableError';
  readonly code: UseCaseCode = 'unavailable';
}

/** The gate has not answered a call within its wait: nothing is lost, the call is sent again. */
export class GateStillEvaluatingError extends UnavailableError {
  override name = 'GateStillEvaluatingError';
  override readonly code: UseCaseCode = 'still_evaluating';
  constructor() {
    super('the gate is still evaluating this call; send it again');
  }
}
