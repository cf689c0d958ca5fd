import { z } from 'zod';
import { asSessionId, asToolCallId, externalIdPattern } from '../domain/gate/ids.js';
import { Problem, type FieldError } from './problem.js';

function pathOf(part: string, path: readonly PropertyKey[]): string {
  return part + path.map((p) => (typeof p === 'number' ? `[${p}]` : `.${String(p)}`)).join('');
}

/** One error per failing field; an unknown key is named at its own path. */
function fieldErrors(part: string, issues: readonly z.core.$ZodIssue[]): FieldError[] {
  return issues.flatMap((issue) =>
    issue.code === 'unrecognized_keys'
      ? issue.keys.map((key) => ({
          path: pathOf(part, [...issue.path, key]),
          message: 'unknown field',
        }))
      : [{ path: pathOf(part, issue.path), message: issue.message }],
  );
}

/** Validates a request part with zod; a failure is a 400 naming every failing path. */
export function validate<S extends z.ZodType>(
  schema: S,
  value: unknown,
  part: 'body' | 'query' | 'path',
): z.output<S> {
  const result = schema.safeParse(value ?? (part === 'body' ? undefined : {}));
  if (result.success) return result.data;
  const errors = fieldErrors(part, result.error.issues);
  throw new Problem(
    400,
    `the request ${part} is not valid: ${errors.map((e) => e.path).join(', ')}`,
    {
      errors,
    },
  );
}

/** An id a runner chooses (session, tool call, model request): bounded and printable. */
export const externalId = z
  .string()
  .regex(externalIdPattern, 'must be 1 to 128 of A-Z a-z 0-9 . _ : -');
export const sessionIdParam = externalId.transform(asSessionId);
export const toolCallIdParam = externalId.transform(asToolCallId);
