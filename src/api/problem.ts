import type { FastifyReply } from 'fastify';
import { z } from 'zod';
import type { FieldError } from '../domain/errors.js';

export type { FieldError };

const titles: Record<number, string> = {
  400: 'Bad request',
  401: 'Unauthenticated',
  402: 'Budget exhausted',
  403: 'Forbidden',
  404: 'Not found',
  405: 'Method not allowed',
  409: 'Conflict',
  413: 'Body too large',
  415: 'Unsupported media type',
  429: 'Too many requests',
  500: 'Internal error',
  503: 'Service unavailable',
};

/**
 * An error the API answers as RFC 9457 problem+json. Route code throws these; the error
 * handler renders them. `type` is a stable URI a client can branch on.
 */
export class Problem extends Error {
  override name = 'Problem';
  constructor(
    readonly status: number,
    readonly detail: string,
    readonly options: {
      type?: string;
      errors?: FieldError[];
      extra?: Record<string, unknown>;
    } = {},
  ) {
    super(detail);
  }

  get type(): string {
    return (
      this.options.type ?? `https://fluidbox.dev/problems/${slug(titles[this.status] ?? 'error')}`
    );
  }

  body() {
    return {
      type: this.type,
      title: titles[this.status] ?? 'Error',
      status: this.status,
      detail: this.detail,
      ...(this.options.errors && { errors: this.options.errors }),
      ...this.options.extra,
    };
  }
}

function slug(title: string): string {
  return title.toLowerCase().replace(/[^a-z0-9]+/g, '-');
}

export function sendProblem(reply: FastifyReply, problem: Problem) {
  return reply.code(problem.status).type('application/problem+json').send(problem.body());
}

/** A problem's body: the RFC 9457 fields, the failing fields, and what some refusals add. */
export const problemSchema = z.looseObject({
  type: z.string(),
  title: z.string(),
  status: z.number().int(),
  detail: z.string(),
  errors: z.array(z.object({ path: z.string(), message: z.string() })).optional(),
});

export const notFound = (what: string) => new Problem(404, `${what} does not exist`);
