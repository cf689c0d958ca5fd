import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { digestOf } from '../../domain/digest.js';
import { declaredToolSchema, photographDeclaredTool } from '../../domain/tools.js';
import { insertCapabilityBundle } from '../../store/capability-bundles.js';
import { workspaceExists } from '../../store/workspaces.js';
import type { ApiContext } from '../context.js';
import { Problem, notFound } from '../problem.js';
import { validate } from '../validation.js';

const bundleBody = z
  .object({
    workspace: z.uuid(),
    name: z
      .string()
      .regex(/^[A-Za-z0-9_-]{1,64}$/, 'a bundle name is 1 to 64 letters, digits, "_" or "-"'),
    version: z.string().min(1).max(64),
    tools: z
      .array(declaredToolSchema)
      .min(1)
      .max(512)
      .refine((tools) => new Set(tools.map((t) => t.name)).size === tools.length, {
        error: 'tool names must be unique within a bundle',
      }),
  })
  .strict();

export function capabilityBundleRoutes(app: FastifyInstance, ctx: ApiContext) {
  app.post('/v1/capability-bundles', async (request, reply) => {
    await ctx.auth.operator(request);
    const body = validate(bundleBody, request.body, 'body');
    if (!(await workspaceExists(ctx.pool, body.workspace)))
      throw notFound(`workspace ${body.workspace}`);
    const tools = body.tools.map(photographDeclaredTool);
    const bundle = await insertCapabilityBundle(ctx.pool, {
      workspace_id: body.workspace,
      name: body.name,
      version: body.version,
      tools,
      digest: digestOf(tools.map((t) => t.digest).sort()),
    });
    if (!bundle) {
      throw new Problem(
        409,
        `bundle ${body.name} version ${body.version} already exists; versions are immutable`,
      );
    }
    return reply.code(201).send({
      id: bundle.id,
      name: bundle.name,
      version: bundle.version,
      tools,
      digest: bundle.digest,
    });
  });
}
