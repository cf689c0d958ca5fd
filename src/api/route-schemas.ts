/**
 * A route's `schema` is its contract: zod schemas for its params, query and body, checked by
 * Fastify before the handler with our field-naming 400; and for each answer a zod schema that
 * Fastify's serialiser (fast-json-stringify) writes by, as the JSON Schema the document shows,
 * so a field the document does not name is never sent.
 */
import type { FastifyInstance, FastifySchemaCompiler } from 'fastify';
import { z } from 'zod';
import { jsonSchemaOf } from './openapi/json-schema.js';
import { validate } from './validation.js';

const parts = { body: 'body', querystring: 'query', params: 'path', headers: 'header' } as const;

/** Validates a request part with its zod schema; the refusal is the `validate` 400 as is. */
const zodValidatorCompiler: FastifySchemaCompiler<z.ZodType> = ({ schema, httpPart }) => {
  const part = (parts as Record<string, (typeof parts)[keyof typeof parts] | undefined>)[
    httpPart ?? ''
  ];
  if (!(schema instanceof z.ZodType) || part === undefined)
    throw new Error(`a route's ${httpPart ?? 'request'} schema must be a zod schema`);
  return (data: unknown) => {
    try {
      return { value: validate(schema, data, part) };
    } catch (err) {
      return { error: err as Error };
    }
  };
};

/** An answer with a body of another media type than JSON (a page, a stream, a script). */
export interface MediaAnswer {
  description: string;
  content: Record<string, { schema: z.ZodType }>;
}

/** A JSON answer: its schema, described. */
export const json = <S extends z.ZodType>(description: string, schema: S): S =>
  schema.describe(description);

/** An answer without a body (204, a redirect). */
export const empty = (description: string) => z.null().describe(description);

/** A refusal with fields of its own, written as problem+json (RFC 9457) like every error. */
export const problem = (description: string, schema: z.ZodType): MediaAnswer => ({
  description,
  content: { 'application/problem+json': { schema } },
});

/** An answer of another media type: a page (`text/html`), an event stream, Prometheus text. */
export const media = (description: string, mediaType = 'text/html'): MediaAnswer => ({
  description,
  content: { [mediaType]: { schema: z.string() } },
});

function asJsonSchema(answer: unknown): unknown {
  if (answer instanceof z.ZodType) return jsonSchemaOf(answer, 'output');
  const { description, content } = answer as MediaAnswer;
  return {
    description,
    content: Object.fromEntries(
      Object.entries(content).map(([type, { schema }]) => [
        type,
        { schema: jsonSchemaOf(schema, 'output') },
      ]),
    ),
  };
}

/**
 * Request parts keep their zod schemas (the validator compiler reads them); each answer's
 * schema becomes JSON Schema, which Fastify compiles into its serialiser.
 */
export function routeSchemasOnZod(app: FastifyInstance): void {
  app.setValidatorCompiler(zodValidatorCompiler);
  app.addHook('onRoute', (route) => {
    const response = route.schema?.response as Record<string, unknown> | undefined;
    if (!response) return;
    route.schema = {
      ...route.schema,
      response: Object.fromEntries(
        Object.entries(response).map(([status, answer]) => [status, asJsonSchema(answer)]),
      ),
    };
  });
}

/**
 * A JSON object the document leaves open (arguments, a tool's result, a frozen tool). Typed as
 * any object, so a handler may pass its interfaces, which TypeScript gives no index signature.
 */
export const anyObject = z.record(z.string(), z.unknown()) as z.ZodType as z.ZodType<object>;

/** A moment, sent as its ISO 8601 string. */
export const timestamp = z.date();
