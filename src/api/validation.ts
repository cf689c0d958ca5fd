import { z } from 'zod';
import { asSessionId, asToolCallId, externalIdPattern } from '../domain/gate/ids.js';
import { escapeUnstorable, unstorableFields } from '../domain/gate/storable-text.js';
import { Problem, type FieldError } from './problem.js';

function pathOf(part: string, path: readonly PropertyKey[]): string {
  return (
    part +
    path.map((p) => (typeof p === 'number' ? `[${p}]` : `.${escapeUnstorable(String(p))}`)).join('')
  );
}

/** Strings PostgreSQL cannot store, anywhere in the part: one 400 naming each, before any use. */
function refuseUnstorable(part: string, value: unknown): void {
  const errors = unstorableFields(value).map((field) => ({
    path: pathOf(part, field.path),
    message: field.message,
  }));
  if (errors.length === 0) return;
  throw new Problem(
    400,
    `the request ${part} holds text that cannot be stored: ${errors.map((e) => e.path).join(', ')}`,
    {
      errors,
    },
  );
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
  part: 'body' | 'query' | 'path' | 'header',
): z.output<S> {
  refuseUnstorable(part, value);
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

/**
 * An http(s) URL without credentials or fragment (and, unless `query`, without a query): a secret
 * in the URL itself would escape the sealer. Its parts are read only once it parses as a URL.
 */
export function httpUrl({ query }: { query: boolean }) {
  const parts = query ? 'credentials or fragment' : 'credentials, query or fragment';
  return z
    .url({ protocol: /^https?$/, abort: true })
    .max(2048)
    .refine((value) => {
      const url = new URL(value);
      return (
        url.username === '' &&
        url.password === '' &&
        url.hash === '' &&
        (query || url.search === '')
      );
    }, `must be an http(s) URL without ${parts}`);
}
