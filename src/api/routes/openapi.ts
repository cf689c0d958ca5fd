import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { json } from '../route-schemas.js';

export const apiVersion = '1.0.0';

/** The document is any JSON object: its own shape is OpenAPI's. */
const openApiAnswer = z.record(z.string(), z.unknown());

export function openApiRoutes(app: FastifyInstance) {
  app.get(
    '/openapi.json',
    {
      config: { caller: 'anyone' },
      schema: {
        operationId: 'openapi',
        summary: 'This document',
        tags: ['operations'],
        response: { 200: json('the OpenAPI 3.1 document', openApiAnswer) },
      },
    },
    () => app.swagger(),
  );
}
