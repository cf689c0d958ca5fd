import type { z } from 'zod';
import { Problem, type FieldError } from './problem.js';

/** Validates a request part with zod; a failure is a 400 naming every failing path. */
export function validate<S extends z.ZodType>(
  schema: S,
  value: unknown,
  part: 'body' | 'query' | 'path',
): z.output<S> {
  const result = schema.safeParse(value ?? (part === 'body' ? undefined : {}));
  if (result.success) return result.data;
  const errors: FieldError[] = result.error.issues.map((issue) => ({
    path: `${part}${issue.path.map((p) => (typeof p === 'number' ? `[${p}]` : `.${String(p)}`)).join('')}`,
    message: issue.message,
  }));
  throw new Problem(
    400,
    `the request ${part} is not valid: ${errors.map((e) => e.path).join(', ')}`,
    {
      errors,
    },
  );
}
