/**
 * The OpenAPI 3.1 document of the API, read off Fastify's own route table by @fastify/swagger:
 * each route's schemas (zod, converted once, see json-schema.ts), its operation id, summary and
 * tag, and its declared caller as the security it needs.
 */
import fastifySwagger from '@fastify/swagger';
import type { FastifyInstance, FastifySchema, RouteOptions } from 'fastify';
import { z } from 'zod';
import type { Caller } from '../callers.js';
import { problemSchema } from '../problem.js';
import { jsonSchemaOf, type JsonSchema } from './json-schema.js';

const security: Record<Caller, Record<string, string[]>[]> = {
  operator: [{ bearer: [] }],
  runner: [{ bearer: [] }],
  member: [{ bearer: [] }],
  reader: [{ bearer: [] }],
  revoker: [{ bearer: [] }],
  admin: [{ bearer: [] }],
  model_key: [{ modelKey: [] }, { bearer: [] }],
  browser: [{ webSession: [] }],
  codec: [{ bearer: [] }, { webSession: [] }],
  scim: [{ bearer: [] }],
  anyone: [],
};

const callerNote: Record<Caller, string> = {
  operator: 'Bearer: the operator key.',
  runner: "Bearer: the run's session token.",
  member: "Bearer: an active member's user token.",
  reader: "Bearer: the run's session token, or the operator key.",
  revoker: 'Bearer: the operator key, or the user token of the member who invoked the run.',
  admin: "Bearer: the operator key (every workspace), or an active admin's user token (their own).",
  model_key: "The run's session token as x-api-key (or Bearer).",
  browser: 'The web session cookie, and the CSRF value on posts.',
  codec:
    "Bearer: the operator key; or the operator's web session, signed in at /login with that key (the Temporal UI).",
  scim: "Bearer: the workspace's SCIM token.",
  anyone: 'No credential.',
};

/** How a route's errors are written: a page on the web form, Anthropic's shape on its API. */
function errorAnswer(caller: Caller, tags: readonly string[], url: string) {
  if (tags.includes('web form'))
    return { description: 'an error, as a page', content: { 'text/html': { schema: {} } } };
  if (tags.includes('oauth')) {
    return {
      description: "an error, in OAuth's shape (RFC 6749 §5.2)",
      content: { 'application/json': { schema: oauthErrorSchema } },
    };
  }
  if (caller === 'model_key') {
    const openai = url.startsWith('/openai/');
    return {
      description: openai
        ? "an error, in OpenAI's shape"
        : "an error, in the Anthropic API's shape",
      content: {
        'application/json': { schema: openai ? openaiErrorSchema : anthropicErrorSchema },
      },
    };
  }
  return {
    description: 'an error (RFC 9457 problem details)',
    content: { 'application/problem+json': { schema: problemRef } },
  };
}

const anthropicErrorSchema = {
  type: 'object',
  properties: {
    type: { const: 'error' },
    error: {
      type: 'object',
      properties: { type: { type: 'string' }, message: { type: 'string' } },
      required: ['type', 'message'],
    },
  },
  required: ['type', 'error'],
};
const openaiErrorSchema = {
  type: 'object',
  properties: {
    error: {
      type: 'object',
      properties: {
        message: { type: 'string' },
        type: { type: 'string' },
        param: { type: ['string', 'null'] },
        code: { type: ['string', 'null'] },
      },
      required: ['message', 'type'],
    },
  },
  required: ['error'],
};

const problemRef = { $ref: '#/components/schemas/Problem' };
const oauthErrorSchema = {
  type: 'object',
  properties: { error: { type: 'string' }, error_description: { type: 'string' } },
  required: ['error'],
};

const requestPart = (schema: unknown): JsonSchema | undefined =>
  schema instanceof z.ZodType ? jsonSchemaOf(schema, 'input') : undefined;

/** One route's operation: its request parts as clients send them, its answers as written. */
function operation(schema: FastifySchema | undefined, route: RouteOptions): FastifySchema {
  if (!schema || schema.hide === true) return { hide: true };
  const caller = route.config?.caller;
  if (!caller) throw new Error(`${route.method.toString()} ${route.url} declares no caller`);
  const tags = (schema.tags ?? []) as string[];
  const parts = {
    params: requestPart(schema.params),
    querystring: requestPart(schema.querystring),
    headers: requestPart(schema.headers),
    body: requestPart(schema.body),
  };
  return {
    ...schema,
    ...Object.fromEntries(Object.entries(parts).filter(([, part]) => part !== undefined)),
    description: callerNote[caller],
    security: security[caller],
    response: { ...(schema.response as object), default: errorAnswer(caller, tags, route.url) },
  };
}

/** Tags in the order their first route was declared. */
function withTags(document: object) {
  const paths = (document as { paths: unknown }).paths as Record<
    string,
    Record<string, { tags?: string[] }>
  >;
  const tags = new Set(
    Object.values(paths).flatMap((item) => Object.values(item).flatMap((op) => op.tags ?? [])),
  );
  return { ...document, tags: [...tags].map((name) => ({ name })) };
}

/** Registers the document's generator; call before any route, so it sees all of them. */
export function documentRoutes(app: FastifyInstance, version: string): void {
  void app.register(fastifySwagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'fluidbox gate',
        version,
        description: "The permission gate for AI agents' tool calls.",
      },
      components: {
        schemas: { Problem: jsonSchemaOf(problemSchema, 'output') },
        securitySchemes: {
          bearer: { type: 'http', scheme: 'bearer' },
          modelKey: { type: 'apiKey', in: 'header', name: 'x-api-key' },
          webSession: { type: 'apiKey', in: 'cookie', name: 'fg_session' },
        },
      },
    },
    convertConstToEnum: false,
    transform: ({ schema, url, route }) => ({ url, schema: operation(schema, route) }),
    transformObject: (document) =>
      withTags('openapiObject' in document ? document.openapiObject : document.swaggerObject),
  });
}
