import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { PhotographError, photographStdio } from '../../broker/photograph.js';
import { photographMcpTools, type UnusableMcpTool } from '../../domain/tools/mcp-tools.js';
import {
  declaredToolSchema,
  photographDeclaredTool,
  type PhotographedTool,
} from '../../domain/tools/tools.js';
import { insertCapabilityBundle } from '../../store/capability-bundles.js';
import { workspaceExists } from '../../store/workspaces.js';
import type { ApiContext } from '../context.js';
import { Problem, notFound } from '../problem.js';
import { validate } from '../validation.js';
import { originName, photographDigest, toolsView } from './connections.js';

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
  });

/** Starts the bundle's stdio MCP server once, lists its tools and stops it. */
async function photographCommand(name: string, command: { cmd: string; args: string[] }) {
  try {
    const listed = await photographStdio(command, { timeoutMs: 20_000 });
    return photographMcpTools(name, listed);
  } catch (err) {
    if (!(err instanceof PhotographError)) throw err;
    throw new Problem(
      err.code === 'invalid_request' ? 400 : 502,
      `the bundle's MCP server could not be photographed (${err.code}): ${err.message}`,
    );
  }
}

export function capabilityBundleRoutes(app: FastifyInstance, ctx: ApiContext) {
  app.post('/v1/capability-bundles', async (request, reply) => {
    await ctx.auth.operator(request);
    const body = validate(bundleBody, request.body, 'body');
    if (!(await workspaceExists(ctx.pool, body.workspace))) {
      throw notFound(`workspace ${body.workspace}`);
    }
    let tools: PhotographedTool[];
    let unusable: UnusableMcpTool[] = [];
    if (body.command) {
      ({ tools, unusable } = await photographCommand(body.name, body.command));
    } else {
      tools = (body.tools ?? []).map(photographDeclaredTool);
    }
    const bundle = await insertCapabilityBundle(ctx.pool, {
      workspace_id: body.workspace,
      name: body.name,
      version: body.version,
      tools,
      digest: photographDigest({ tools }),
      command: body.command ?? null,
      unusable,
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
      tools: toolsView(bundle),
      unusable: bundle.unusable,
      digest: bundle.digest,
    });
  });
}
