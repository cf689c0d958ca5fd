import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { oauthNames } from '../../application/mcp-oauth/resource.js';
import type { ApiContext } from '../context.js';
import { mcpResourceMetadataPath } from '../mcp/bearer.js';
import { json } from '../route-schemas.js';

const protectedResourceMetadata = z.object({
  resource: z.string(),
  authorization_servers: z.array(z.string()),
  bearer_methods_supported: z.array(z.string()),
  resource_name: z.string(),
  resource_documentation: z.string().optional(),
});

/**
 * RFC 9728: `/mcp` is protected by the gate's own authorization server. A 401 from `/mcp` names
 * this document in its `WWW-Authenticate` (`mcpChallenge`).
 */
export function protectedResourceRoutes(server: FastifyInstance, ctx: ApiContext) {
  const app = server.withTypeProvider<ZodTypeProvider>();
  const { issuer, resource } = oauthNames(ctx.publicUrl);
  app.get(
    mcpResourceMetadataPath,
    {
      config: { caller: 'anyone' },
      schema: {
        operationId: 'mcpProtectedResourceMetadata',
        summary: "The remote MCP endpoint's protected resource metadata (RFC 9728)",
        tags: ['oauth'],
        response: { 200: json('the metadata', protectedResourceMetadata) },
      },
    },
    () => {
      return {
        resource,
        authorization_servers: [issuer],
        bearer_methods_supported: ['header'],
        resource_name: 'fluidbox gate',
      };
    },
  );
}
