import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { registerCapabilityBundle } from '../../application/register-capability-bundle.js';
import { declaredToolSchema } from '../../domain/tools/tools.js';
import type { ApiContext } from '../context.js';
import { json } from '../route-schemas.js';
import { originName, toolAnswer, toolsView, unusableAnswer } from './connections.js';

const bundleBody = z
  .object({
    workspace: z.uuid(),
    name: originName,
    version: z.string().min(1).max(64),
    tools: z
      .array(declaredToolSchema)
      .min(1)
      .max(512)
      .refine((tools) => new Set(tools.map((t) => t.name)).size === tools.length, {
        error: 'tool names must be unique within a bundle',
      })
      .optional(),
    command: z
      .object({
        cmd: z.string().min(1).max(1024),
        args: z.array(z.string().max(4096)).max(64).default([]),
      })
      .strict()
      .optional(),
  })
  .strict()
  .refine((b) => (b.tools === undefined) !== (b.command === undefined), {
    error: 'give either tools (a declared bundle) or command (a stdio MCP server to photograph)',
    path: ['tools'],
  })
  .meta({ oneOf: [{ required: ['tools'] }, { required: ['command'] }] });

const bundleAnswer = z.object({
  id: z.uuid(),
  name: z.string(),
  version: z.string(),
  tools: z.array(toolAnswer),
  unusable: z.array(unusableAnswer),
  digest: z.string(),
});

export function capabilityBundleRoutes(server: FastifyInstance, ctx: ApiContext) {
  const app = server.withTypeProvider<ZodTypeProvider>();
  app.post(
    '/v1/capability-bundles',
    {
      config: { caller: 'operator' },
      schema: {
        operationId: 'registerCapabilityBundle',
        summary: 'Register a sandbox tool bundle, declared or photographed',
        tags: ['tools'],
        body: bundleBody,
        response: { 201: json('registered', bundleAnswer) },
      },
    },
    async (request, reply) => {
      const bundle = await registerCapabilityBundle(ctx.pool, request.body);
      return reply.code(201).send({
        id: bundle.id,
        name: bundle.name,
        version: bundle.version,
        tools: toolsView(bundle),
        unusable: bundle.unusable,
        digest: bundle.digest,
      });
    },
  );
}
