/**
 * The OpenAPI 3.1 document of the API, generated from the route table's zod schemas with zod's
 * own JSON Schema output (JSON Schema 2020-12, which OpenAPI 3.1 uses as is).
 */
import { z } from 'zod';
import { responses } from './response-shapes.js';
import { routeContracts, type Answer, type Caller, type RouteContract } from './route-contracts.js';

type JsonSchema = Record<string, unknown>;

/** Shared definitions a schema refers to, gathered under components/schemas. */
class SchemaCollector {
  readonly components: Record<string, JsonSchema> = {};
  private count = 0;

  /** The request's view of a schema (what a client may send: defaults make a field optional). */
  convert(schema: z.ZodType, io: 'input' | 'output' = 'input'): JsonSchema {
    const converted = z.toJSONSchema(schema, { io, unrepresentable: 'any' }) as JsonSchema;
    delete converted.$schema;
    const defs = (converted.$defs ?? {}) as Record<string, JsonSchema>;
    delete converted.$defs;
    if (Object.keys(defs).length === 0) return converted;
    // Local definitions move to components/schemas under names of their own; refs follow.
    const prefix = `S${++this.count}_`;
    const relocate = (value: unknown): unknown => {
      if (Array.isArray(value)) return value.map(relocate);
      if (value === null || typeof value !== 'object') return value;
      return Object.fromEntries(
        Object.entries(value).map(([key, inner]) =>
          key === '$ref' && typeof inner === 'string' && inner.startsWith('#/$defs/')
            ? [key, `#/components/schemas/${prefix}${inner.slice('#/$defs/'.length)}`]
            : [key, relocate(inner)],
        ),
      );
    };
    for (const [name, def] of Object.entries(defs)) {
      this.components[prefix + name] = relocate(def) as JsonSchema;
    }
    return relocate(converted) as JsonSchema;
  }
}

/** `/v1/runs/:id` as OpenAPI writes it: `/v1/runs/{id}`. */
export function openApiPath(fastifyPath: string): string {
  return fastifyPath.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
}

const security: Record<Caller, Record<string, string[]>[]> = {
  operator: [{ bearer: [] }],
  runner: [{ bearer: [] }],
  user: [{ bearer: [] }],
  reader: [{ bearer: [] }],
  revoker: [{ bearer: [] }],
  model_key: [{ modelKey: [] }, { bearer: [] }],
  browser: [{ webSession: [] }],
  codec: [{ bearer: [] }, { webSession: [] }],
  anyone: [],
};

const callerNote: Record<Caller, string> = {
  operator: 'Bearer: the operator key.',
  runner: "Bearer: the run's session token.",
  user: "Bearer: a member's user token.",
  reader: "Bearer: the run's session token, or the operator key.",
  revoker: 'Bearer: the operator key, or the user token of the member who invoked the run.',
  model_key: "The run's session token as x-api-key (or Bearer).",
  browser: 'The web session cookie, and the CSRF value on posts.',
  codec:
    "Bearer: the operator key; or the operator's web session, signed in at /login with that key (the Temporal UI).",
  anyone: 'No credential.',
};

function parameters(schemas: SchemaCollector, route: RouteContract) {
  const of = (where: 'path' | 'query', schema: z.ZodType | undefined) => {
    if (!schema) return [];
    const converted = schemas.convert(schema);
    const properties = (converted.properties ?? {}) as Record<string, JsonSchema>;
    const required = new Set((converted.required ?? []) as string[]);
    return Object.entries(properties).map(([name, property]) => ({
      name,
      in: where,
      required: where === 'path' || required.has(name),
      schema: property,
    }));
  };
  return [...of('path', route.params), ...of('query', route.query)];
}

function content(schemas: SchemaCollector, answer: Answer) {
  if (answer.mediaType) return { [answer.mediaType]: { schema: { type: 'string' } } };
  if (!answer.schema) return undefined;
  return { 'application/json': { schema: schemas.convert(answer.schema, 'output') } };
}

function operation(schemas: SchemaCollector, route: RouteContract) {
  const answers = Object.fromEntries(
    Object.entries(route.answers).map(([status, answer]) => {
      const body = content(schemas, answer);
      return [status, { description: answer.description, ...(body && { content: body }) }];
    }),
  );
  const requestBody = route.body
    ? { required: true, content: { 'application/json': { schema: schemas.convert(route.body) } } }
    : route.formBody
      ? {
          required: true,
          content: {
            'application/x-www-form-urlencoded': { schema: schemas.convert(route.formBody) },
          },
        }
      : undefined;
  return {
    operationId: route.operationId,
    summary: route.summary,
    description: callerNote[route.caller],
    tags: [route.tag],
    security: security[route.caller],
    parameters: parameters(schemas, route),
    ...(requestBody && { requestBody }),
    responses: {
      ...answers,
      default: {
        description: 'an error (RFC 9457 problem details)',
        content: {
          'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } },
        },
      },
    },
  };
}

/** The whole document, built once per process. */
export function buildOpenApiDocument(version: string) {
  const schemas = new SchemaCollector();
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routeContracts) {
    const path = openApiPath(route.path);
    paths[path] = { ...paths[path], [route.method]: operation(schemas, route) };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'fluidbox gate',
      version,
      description: "The permission gate for AI agents' tool calls.",
    },
    tags: [...new Set(routeContracts.map((r) => r.tag))].map((name) => ({ name })),
    paths,
    components: {
      schemas: { Problem: schemas.convert(responses.problem, 'output'), ...schemas.components },
      securitySchemes: {
        bearer: { type: 'http', scheme: 'bearer' },
        modelKey: { type: 'apiKey', in: 'header', name: 'x-api-key' },
        webSession: { type: 'apiKey', in: 'cookie', name: 'fg_session' },
      },
    },
  };
}
