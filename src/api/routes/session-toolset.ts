import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { sessionToolset } from '../../application/session-toolset.js';
import type { ApiContext } from '../context.js';
import { sessionIdParam, validate } from '../validation.js';

export const toolsetParams = z.object({ session_id: sessionIdParam }).strict();

export function sessionToolsetRoutes(app: FastifyInstance, ctx: ApiContext) {
  // The runner's view of what its run froze, grouped by origin: what the gate MCP proxy serves.
  app.get('/v1/sessions/:session_id/toolset', async (request) => {
    const params = validate(toolsetParams, request.params, 'path');
    const run = await ctx.auth.runner(request, params.session_id);
    return sessionToolset(ctx.pool, run);
  });
}
