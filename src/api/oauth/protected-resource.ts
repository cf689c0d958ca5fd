import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { oauthNames } from '../../application/mcp-oauth/resource.js';
import type { ApiContext } from '../context.js';
import { json } from '../route-schemas.js';

export const protectedResourceMetadataPath = '/.well-known/oauth-protected-resource/mcp';

/**
 * The `WWW-Authenticate` of a 401 from `/mcp` (RFC 6750 §3, RFC 9728 §5.1): where the resource's
 * metadata is, so a client finds the gate's authorization server from the refusal alone; with
 * `invalid_token` when a token was presented and refused.
 */
export function mcpBearerChallenge(publicUrl: string, tokenPresented: boolean): string {
  const { issuer } = oauthNames(publicUrl);
  const metadata = `resource_metadata="${issuer}${protectedResourceMetadataPath}"`;
  return tokenPresented
    ? `Bearer error="invalid_token", error_description="the access token is not valid for this resource", ${metadata}`
    : `Bearer ${metadata}`;
}

export const protectedResourceMetadata = z.object({
  resource: z.string(),
  authorization_servers: z.array(z.string()),
  bearer_methods_supported: z.array(z.string()),
  resource_name: z.string(),
  resource_documentation: z.string().optional(),
});

/** RFC 9728: `/mcp` is protected by the gate's own authorization server. */
export function protectedResourceRoutes(server: FastifyInstance, ctx: ApiContext) {
  const app = server.withTypeProvider<ZodTypeProvider>();
  const { issuer, resource } = oauthNames(ctx.publicUrl);
  app.get(
    protectedResourceMetadataPath,
    {
      config: { caller: 'anyone' },
      schema: {
        operationId: 'mcpProtectedResourceMetadata',
        summary: "The remote MCP endpoint's protected resource metadata (RFC 9728)",
        tags: ['oauth'],
        response: { 200: json('the metadata', protectedResourceMetadata) },
      },
    },
    async (_request, reply) => {
      reply.header('access-control-allow-origin', '*');
      return {
        resource,
        authorization_servers: [issuer],
        bearer_methods_supported: ['header'],
        resource_name: 'fluidbox gate',
      };
    },
  );
}
