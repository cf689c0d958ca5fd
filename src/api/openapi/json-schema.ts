import { z } from 'zod';

export type JsonSchema = Record<string, unknown>;

/**
 * A zod schema as JSON Schema 2020-12 (what OpenAPI 3.1 uses as is): `input` is what a client
 * may send (a default makes a field optional), `output` what the API sends. A date is sent as
 * its ISO string. The one conversion behind the document and the response serialiser, so the
 * two cannot disagree.
 */
export function jsonSchemaOf(schema: z.ZodType, io: 'input' | 'output'): JsonSchema {
  const converted = z.toJSONSchema(schema, {
    io,
    unrepresentable: 'any',
    override: ({ zodSchema, jsonSchema }) => {
      if (zodSchema._zod.def.type === 'date') {
        jsonSchema.type = 'string';
        jsonSchema.format = 'date-time';
      }
    },
  }) as JsonSchema;
  delete converted.$schema;
  if (converted.$defs !== undefined) {
    // A shared definition would need a place in components/schemas: none of ours has one.
    throw new Error('a route schema must not hold shared definitions ($defs)');
  }
  return converted;
}
