import type { FastifyInstance } from 'fastify';
import { buildOpenApiDocument } from '../openapi/openapi-document.js';

export const apiVersion = '1.0.0';

export function openApiRoutes(app: FastifyInstance) {
  let document: ReturnType<typeof buildOpenApiDocument> | undefined;
  app.get('/openapi.json', () => (document ??= buildOpenApiDocument(apiVersion)));
}
