import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { sessionToolset } from '../../application/session-toolset.js';
import { effectSchema } from '../../domain/tools/tools.js';
import { callerRun } from '../callers.js';
import type { ApiContext } from '../context.js';
import { anyObject, json } from '../route-schemas.js';
import { sessionIdParam } from '../validation.js';

const toolsetParams = z.object({ session_id: sessionIdParam }).strict();

const runnerTool = z.object({
  name: z.string(),
  mcp_name: z.string().optional(),
  description: z.string(),
  input_schema: anyObject,
  effect: effectSchema,
  annotations: anyObject.optional(),
  digest: z.string(),
  callable: z.boolean(),
});
const toolsetAnswer = z.object({
  run_id: z.uuid(),
  toolset_digest: z.string(),
  origins: z.array(
    z.object({
      name: z.string(),
      kind: z.enum(['bundle', 'connection']),
      class: z.enum(['sandbox', 'brokered']),
      command: z.object({ cmd: z.string(), args: z.array(z.string()) }).optional(),
      tools: z.array(runnerTool),
    }),
  ),
});

export function sessionToolsetRoutes(server: FastifyInstance, ctx: ApiContext) {
  const app = server.withTypeProvider<ZodTypeProvider>();
  // The runner's view of what its run froze, grouped by origin: what the gate MCP proxy serves.
  app.get(
    '/v1/sessions/:session_id/toolset',
    {
      config: { caller: 'runner' },
      schema: {
        operationId: 'getSessionToolset',
        summary: 'What the run froze, grouped by origin',
        tags: ['gate'],
        params: toolsetParams,
        response: { 200: json('the tool set', toolsetAnswer) },
      },
    },
    async (request) => sessionToolset(ctx.pool, callerRun(request)),
  );
}
