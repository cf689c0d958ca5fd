import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { addMember, changeMember, setWorkspaceIdentity } from '../../application/workspaces.js';
import { createWorkspace } from '../../store/workspaces.js';
import type { ApiContext } from '../context.js';
import { validate } from '../validation.js';

const name = z.string().trim().min(1).max(200);
const role = z.enum(['member', 'approver', 'admin']);
export const workspaceParams = z.object({ ws: z.uuid() }).strict();
export const memberParams = z.object({ ws: z.uuid(), user_id: z.uuid() }).strict();

export const workspaceBody = z.object({ name }).strict();
export const memberBody = z.object({ name, role }).strict();
export const memberChangeBody = z
  .object({ role: role.optional(), status: z.enum(['active', 'suspended']).optional() })
  .strict()
  .refine((b) => b.role !== undefined || b.status !== undefined, {
    error: 'give role, status or both',
  });

/** Group names and the claim are the provider's strings; bounded, never interpreted. */
const groupName = z.string().min(1).max(256);
export const workspaceIdentityBody = z
  .object({
    groups_claim: z.string().min(1).max(100).default('groups'),
    roles: z.record(groupName, role).refine((roles) => Object.keys(roles).length <= 1000, {
      error: 'at most 1000 groups',
    }),
  })
  .strict();

export function workspaceRoutes(app: FastifyInstance, ctx: ApiContext) {
  app.post('/v1/workspaces', async (request, reply) => {
    await ctx.auth.operator(request);
    const body = validate(workspaceBody, request.body, 'body');
    const id = await createWorkspace(ctx.pool, body.name);
    return reply.code(201).send({ id, name: body.name });
  });

  app.post('/v1/workspaces/:ws/members', async (request, reply) => {
    await ctx.auth.operator(request);
    const { ws } = validate(workspaceParams, request.params, 'path');
    const body = validate(memberBody, request.body, 'body');
    const { member, userToken } = await addMember(ctx.pool, ws, body);
    return reply.code(201).send({
      user_id: member.id,
      user_token: userToken,
      name: member.name,
      role: member.role,
      status: member.status,
    });
  });

  app.patch('/v1/workspaces/:ws/members/:user_id', async (request) => {
    await ctx.auth.operator(request);
    const { ws, user_id } = validate(memberParams, request.params, 'path');
    const body = validate(memberChangeBody, request.body, 'body');
    const member = await changeMember(ctx.pool, ws, user_id, body);
    return { user_id: member.id, name: member.name, role: member.role, status: member.status };
  });

  app.put('/v1/workspaces/:ws/identity', async (request) => {
    await ctx.auth.operator(request);
    const { ws } = validate(workspaceParams, request.params, 'path');
    const body = validate(workspaceIdentityBody, request.body, 'body');
    await setWorkspaceIdentity(ctx.pool, ws, body);
    return body;
  });
}
