import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { PhotographError, photographHttp } from '../../broker/photograph.js';
import type { BearerCredential } from '../../broker/sealing.js';
import { digestOf } from '../../domain/ledger/digest.js';
import {
  diffPhotographs,
  photographMcpTools,
  type McpPhotograph,
} from '../../domain/tools/mcp-tools.js';
import { guardToolSchemas } from '../../domain/tools/schema-guard.js';
import type { PhotographedTool } from '../../domain/tools/tools.js';
import {
  findConnection,
  insertConnection,
  reauthorizeConnection,
  replacePhotograph,
  revokeConnection,
  type ConnectionRow,
} from '../../store/connections.js';
import { findMember } from '../../store/members.js';
import { workspaceExists } from '../../store/workspaces.js';
import type { ApiContext } from '../context.js';
import { Problem, badInput, notFound } from '../problem.js';
import { validate } from '../validation.js';

export const originName = z
  .string()
  .regex(
    /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/,
    'a name is 1 to 64 letters, digits, "_" or "-", starting with a letter or digit',
  );

const credential = z
  .object({ type: z.literal('bearer'), token: z.string().min(1).max(8192) })
  .strict();

const connectionBody = z
  .object({
    workspace: z.uuid(),
    name: originName,
    kind: z.enum(['org', 'personal']),
    owner_user_id: z.uuid().optional(),
    url: z.url({ protocol: /^https?$/ }).max(2048),
    credential,
  })
  .strict()
  .refine((b) => (b.kind === 'personal') === (b.owner_user_id !== undefined), {
    error: 'a personal connection names its owner_user_id; an org connection has none',
    path: ['owner_user_id'],
  });

const idParams = z.object({ id: z.uuid() }).strict();

/** A photograph's tools as the API shows them: never the credential, always callability. */
export function toolsView(photograph: {
  tools: readonly (PhotographedTool & { mcp_name?: string })[];
}) {
  const uncallable = guardToolSchemas(photograph.tools);
  return photograph.tools.map((tool) => ({
    name: tool.name,
    ...(tool.mcp_name !== undefined && { mcp_name: tool.mcp_name }),
    effect: tool.effect,
    digest: tool.digest,
    callable: !uncallable.has(tool.name),
    ...(uncallable.has(tool.name) && { uncallable_reason: uncallable.get(tool.name) }),
  }));
}

export function photographDigest(photograph: { tools: readonly PhotographedTool[] }): string {
  return digestOf(photograph.tools.map((t) => t.digest).sort());
}

function connectionView(row: ConnectionRow) {
  return {
    id: row.id,
    workspace: row.workspace_id,
    name: row.name,
    kind: row.kind,
    owner_user_id: row.owner_user_id,
    url: row.url,
    status: row.status,
    auth_generation: row.auth_generation,
    tools: toolsView(row),
    unusable: row.unusable,
    digest: row.digest,
    photographed_at: row.photographed_at,
  };
}

/** An upstream that cannot be photographed is the caller's problem to fix, never a 500. */
function photographProblem(err: unknown): Problem {
  if (!(err instanceof PhotographError)) throw err;
  const status = err.code === 'invalid_request' ? 400 : 502;
  return new Problem(
    status,
    `the MCP server could not be photographed (${err.code}): ${err.message}`,
    {
      type: `https://fluidbox.dev/problems/upstream-${err.code.replace(/_/g, '-')}`,
    },
  );
}

async function photograph(
  name: string,
  url: string,
  secret: BearerCredential,
): Promise<McpPhotograph> {
  try {
    const listed = await photographHttp(url, secret);
    return photographMcpTools(name, listed);
  } catch (err) {
    throw photographProblem(err);
  }
}

export function connectionRoutes(app: FastifyInstance, ctx: ApiContext) {
  app.post('/v1/connections', async (request, reply) => {
    await ctx.auth.operator(request);
    const body = validate(connectionBody, request.body, 'body');
    if (!(await workspaceExists(ctx.pool, body.workspace)))
      throw notFound(`workspace ${body.workspace}`);
    if (body.owner_user_id) {
      const owner = await findMember(ctx.pool, body.workspace, body.owner_user_id);
      if (owner?.status !== 'active') {
        throw badInput('the owner must be an active member of the workspace', [
          { path: 'body.owner_user_id', message: 'not an active member of this workspace' },
        ]);
      }
    }
    const shot = await photograph(body.name, body.url, body.credential);
    const id = randomUUID();
    const row = await insertConnection(ctx.pool, {
      id,
      workspace_id: body.workspace,
      name: body.name,
      kind: body.kind,
      owner_user_id: body.owner_user_id ?? null,
      url: body.url,
      sealed_credential: ctx.sealer.seal(id, body.credential).toBytes(),
      tools: shot.tools,
      unusable: shot.unusable,
      digest: photographDigest(shot),
    });
    if (!row)
      throw new Problem(409, `the workspace already has an active connection named ${body.name}`);
    return reply.code(201).send(connectionView(row));
  });

  app.get('/v1/connections/:id', async (request) => {
    await ctx.auth.operator(request);
    const { id } = validate(idParams, request.params, 'path');
    const row = await findConnection(ctx.pool, id);
    if (!row) throw notFound(`connection ${id}`);
    return connectionView(row);
  });

  app.post('/v1/connections/:id/tools/refresh', async (request) => {
    await ctx.auth.operator(request);
    const { id } = validate(idParams, request.params, 'path');
    const row = await findConnection(ctx.pool, id);
    if (row?.status !== 'active') throw notFound(`active connection ${id}`);
    const secret = ctx.sealer.unseal(id, ctx.sealer.fromStored(row.sealed_credential));
    const shot = await photograph(row.name, row.url, secret);
    const updated = await replacePhotograph(ctx.pool, id, {
      ...shot,
      digest: photographDigest(shot),
    });
    if (!updated) throw notFound(`active connection ${id}`);
    return { ...connectionView(updated), ...diffPhotographs(row.tools, updated.tools) };
  });

  app.post('/v1/connections/:id/reauthorize', async (request) => {
    await ctx.auth.operator(request);
    const { id } = validate(idParams, request.params, 'path');
    const body = validate(z.object({ credential }).strict(), request.body, 'body');
    const updated = await reauthorizeConnection(
      ctx.pool,
      id,
      ctx.sealer.seal(id, body.credential).toBytes(),
    );
    if (!updated) throw notFound(`active connection ${id}`);
    return { id, auth_generation: updated.auth_generation };
  });

  app.delete('/v1/connections/:id', async (request) => {
    await ctx.auth.operator(request);
    const { id } = validate(idParams, request.params, 'path');
    const revoked = await revokeConnection(ctx.pool, id);
    if (!revoked) throw notFound(`connection ${id}`);
    return { id, status: revoked.status };
  });
}
