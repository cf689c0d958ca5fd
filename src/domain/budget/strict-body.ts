/**
 * A model request's body read strictly, once, before anything bounds it: UTF-8, JSON, a shape
 * every later walk can afford, no member a parser or schema library would drop or rewrite, and
 * the schema's output carrying every member of the JSON it read (so what is bounded is what is
 * forwarded). Shared by the gate's model endpoints. Pure: no I/O.
 */
import type { z } from 'zod';
import { jsonTextProblem, type JsonTextProblem } from './json-text-shape.js';
import { firstProtoMember, firstUncarriedMember } from './carried-members.js';
import { escapeUnstorable, unstorableFields } from '../gate/storable-text.js';

type StrictRead<T> =
  { ok: true; value: unknown; data: T } | { ok: false; message: string; path?: string };

const utf8 = new TextDecoder('utf-8', { fatal: true });

function pathOf(path: readonly PropertyKey[]): string {
  return path
    .map((p, i) => (typeof p === 'number' ? `[${p}]` : `${i === 0 ? '' : '.'}${String(p)}`))
    .join('');
}

/**
 * Far beyond a real request (the schema's own nesting plus JSON parts 64 deep; Claude Code's
 * requests hold a few thousand values), and what keeps every walk of a hostile body cheap.
 */
const textLimits = { maxDepth: 100, maxNumberLength: 32, maxValues: 200_000 } as const;

function shapeMessage(problem: JsonTextProblem): string {
  switch (problem.kind) {
    case 'duplicate':
      return `the member "${problem.name.slice(0, 64)}" appears twice in one object`;
    case 'too_deep':
      return `the body is nested deeper than ${problem.maxDepth} levels`;
    case 'long_number':
      return `a number is written with more than ${problem.maxLength} characters`;
    case 'too_many_values':
      return `the body holds more than ${problem.maxValues} members and elements`;
  }
}

/** A member that would be forwarded but not bounded (see carried-members.ts). */
function uncountedMember(at: (string | number)[]): { ok: false; message: string; path: string } {
  const path = pathOf(at.map((p) => (typeof p === 'string' ? escapeUnstorable(p) : p)));
  return {
    ok: false,
    path,
    message: `${path || 'body'}: this member cannot be read as it is (a name such as "__proto__" that JSON parsers and schema libraries treat specially), so it cannot be counted: rename or remove it`,
  };
}

/**
 * The issue to report: of a value matching none of a union's shapes (a text or a list of parts),
 * the issue of the shape that read furthest into it, which names the member at fault.
 */
function deepestIssue(issue: z.core.$ZodIssue): z.core.$ZodIssue {
  if (issue.code !== 'invalid_union' || issue.errors.length === 0) return issue;
  let best: z.core.$ZodIssue | undefined;
  for (const [first] of issue.errors) {
    if (first && (best === undefined || first.path.length > best.path.length)) best = first;
  }
  if (best === undefined || best.path.length === 0) return issue;
  return deepestIssue({ ...best, path: [...issue.path, ...best.path] });
}

/** An unknown field is named at its own path. */
function issueKeyPath(issue: z.core.$ZodIssue): PropertyKey[] {
  if (issue.code === 'unrecognized_keys' && issue.keys[0] !== undefined)
    return [...issue.path, issue.keys[0]];
  return issue.path;
}

/** Parses the body once against `schema` (see the comment at the top). */
export function readStrictBody<S extends z.ZodType>(
  raw: Uint8Array,
  schema: S,
): StrictRead<z.output<S>> {
  let text: string;
  let value: unknown;
  try {
    text = utf8.decode(raw);
    value = JSON.parse(text);
  } catch {
    return { ok: false, message: 'the body is not JSON in UTF-8' };
  }
  // The text's shape first, in one pass without recursion: every walk below is then bounded.
  const shape = jsonTextProblem(text, textLimits);
  if (shape !== undefined) return { ok: false, message: shapeMessage(shape) };
  const [unstorable] = unstorableFields(value, 1);
  if (unstorable) {
    const path = pathOf(
      unstorable.path.map((p) => (typeof p === 'string' ? escapeUnstorable(p) : p)),
    );
    return { ok: false, path, message: `${path || 'body'}: ${unstorable.message}` };
  }
  const proto = firstProtoMember(value);
  if (proto !== undefined) return uncountedMember(proto);
  const parsed = schema.safeParse(value);
  if (!parsed.success) {
    const [first] = parsed.error.issues;
    const issue = first && deepestIssue(first);
    const path = issue ? pathOf(issueKeyPath(issue)) : '';
    return { ok: false, path, message: `${path || 'body'}: ${issue?.message ?? 'is not valid'}` };
  }
  const uncarried = firstUncarriedMember(value, parsed.data);
  if (uncarried !== undefined) return uncountedMember(uncarried);
  return { ok: true, value, data: parsed.data };
}
