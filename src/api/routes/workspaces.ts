import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { changeMember } from '../../application/member-access.js';
import { addMember, createWorkspace, setWorkspaceIdentity } from '../../application/workspaces.js';
import type { ApiContext } from '../context.js';
import { json } from '../route-schemas.js';

const name = z.string().trim().min(1).max(200);
const role = z.enum(['member', 'approver', 'admin']);
const memberStatus = z.enum(['active', 'suspended']);
export const workspaceParams = z.object({ ws: z.uuid() }).strict();
export const memberParams = z.object({ ws: z.uuid(), user_id: z.uuid() }).strict();

const workspaceBody = z.object({ name }).strict();
const memberBody = z.object({ name, role }).strict();
const memberChangeBody = z
  .object({ role: role.optional(), status: memberStatus.optional() })
  .strict()
  .refine((b) => b.role !== undefined || b.status !== undefined, {
    error: 'give role, status or both',
  })
  .meta({ minProperties: 1 });

/** Group names and the claim are the provider's strings; bounded, never interpreted. */
const groupName = z.string().min(1).max(256);
const workspaceIdentityBody = z
  .object({
    groups_claim: z.string().min(1).max(100).default('groups'),
    roles: z.record(groupName, role).refine((roles) => Object.keys(roles).length <= 1000, {
      error: 'at most 1000 groups',
    }),
  })
  .strict();

const workspaceAnswer = z.object({ id: z.uuid(), name: z.string() });
const memberAnswer = z.object({
  user_id: z.uuid(),
  name: z.string(),
  role,
  status: memberStatus,
});
const newMemberAnswer = memberAnswer.extend({ user_token: z.string() });
/** The workspace's mapping from the provider's groups to its roles. */
const workspaceIdentityAnswer = z.object({
  groups_claim: z.string(),
  roles: z.record(z.string(), role),
});

const tags = ['workspaces'];

export function workspaceRoutes(server: FastifyInstance, ctx: ApiContext) {
  const app = server.withTypeProvider<ZodTypeProvider>();
  const config = { caller: 'operator' } as const;

  app.post(
    '/v1/workspaces',
    {
      config,
      schema: {
        operationId: 'createWorkspace',
        summary: 'Create a workspace',
        tags,
        body: workspaceBody,
        response: { 201: json('created', workspaceAnswer) },
      },
    },
    async (request, reply) => {
      const id = await createWorkspace(ctx.pool, request.body.name);
      return reply.code(201).send({ id, name: request.body.name });
    },
  );

  app.post(
    '/v1/workspaces/:ws/members',
    {
      config,
      schema: {
        operationId: 'addMember',
        summary: 'Add a member; the user token is returned once',
        tags,
        params: workspaceParams,
        body: memberBody,
        response: { 201: json('created', newMemberAnswer) },
      },
    },
    async (request, reply) => {
      const { member, userToken } = await addMember(ctx.pool, request.params.ws, request.body);
      return reply.code(201).send({
        user_id: member.id,
        user_token: userToken,
        name: member.name,
        role: member.role,
        status: member.status,
      });
    },
  );

  app.patch(
    '/v1/workspaces/:ws/members/:user_id',
    {
      config,
      schema: {
        operationId: 'changeMember',
        summary: "Change a member's role or status",
        tags,
        params: memberParams,
        body: memberChangeBody,
        response: { 200: json('changed', memberAnswer) },
      },
    },
    async (request) => {
      const { ws, user_id } = request.params;
      const member = await changeMember(ctx, ws, user_id, request.body);
      return { user_id: member.id, name: member.name, role: member.role, status: member.status };
    },
  );

  app.put(
    '/v1/workspaces/:ws/identity',
    {
      config,
      schema: {
        operationId: 'setWorkspaceIdentity',
        summary:
          "Map the identity provider's groups to the workspace's roles; each person's memberships follow at their next sign-in",
        tags,
        params: workspaceParams,
        body: workspaceIdentityBody,
        response: { 200: json('the mapping', workspaceIdentityAnswer) },
      },
    },
    async (request) => {
      await setWorkspaceIdentity(ctx.pool, request.params.ws, request.body);
      return request.body;
    },
  );
}
