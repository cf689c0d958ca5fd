import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import {
  reauthorizeConnection,
  refreshConnectionTools,
  registerConnection,
} from '../../application/connections.js';
import {
  disconnect,
  registerOAuthConnection,
  requestReauthorization,
} from '../../application/oauth-connections.js';
import { guardToolSchemas } from '../../domain/tools/schema-guard.js';
import type { PhotographedTool } from '../../domain/tools/tools.js';
import { findConnection, type ConnectionRow } from '../../store/connections.js';
import type { ApiContext } from '../context.js';
import { notFound } from '../problem.js';
import { validate } from '../validation.js';

export const originName = z
  .string()
  .regex(
    /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/,
    'a name is 1 to 64 letters, digits, "_" or "-", starting with a letter or digit',
  );

const bearerCredential = z
  .object({ type: z.literal('bearer'), token: z.string().min(1).max(8192) })
  .strict();

/** An OAuth scope token (RFC 6749 section 3.3): printable ASCII without spaces, quotes or "\\". */
const scopeToken = z.string().regex(/^[\x21\x23-\x5b\x5d-\x7e]{1,200}$/, 'not an OAuth scope');

export const oauthCredential = z
  .object({
    type: z.literal('oauth'),
    scopes: z.array(scopeToken).max(50).optional(),
    client_id: z.string().min(1).max(512).optional(),
    client_secret: z.string().min(1).max(2048).optional(),
  })
  .strict()
  .refine((c) => c.client_secret === undefined || c.client_id !== undefined, {
    error: 'a client_secret comes with its client_id',
    path: ['client_secret'],
  });

const credential = z.discriminatedUnion('type', [bearerCredential, oauthCredential]);

export const connectionBody = z
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

export const reauthorizeBody = z
  .object({
    credential: z.discriminatedUnion('type', [
      bearerCredential,
      z.object({ type: z.literal('oauth') }).strict(),
    ]),
  })
  .strict();
export const idParams = z.object({ id: z.uuid() }).strict();

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

function connectionView(row: ConnectionRow) {
  return {
    id: row.id,
    workspace: row.workspace_id,
    name: row.name,
    kind: row.kind,
    owner_user_id: row.owner_user_id,
    url: row.url,
    status: row.status,
    ...(row.status_reason !== null && { status_reason: row.status_reason }),
    credential_type: row.credential_type,
    ...(row.scopes !== null && { scopes: row.scopes.split(' ') }),
    auth_generation: row.auth_generation,
    tools: toolsView(row),
    unusable: row.unusable,
    digest: row.digest,
    photographed_at: row.photographed_at,
    last_used_at: row.last_used_at,
  };
}

export function connectionRoutes(app: FastifyInstance, ctx: ApiContext) {
  app.post('/v1/connections', async (request, reply) => {
    await ctx.auth.operator(request);
    const body = validate(connectionBody, request.body, 'body');
    const { credential: given, ...target } = body;
    if (given.type === 'oauth') {
      const awaiting = await registerOAuthConnection(ctx, { ...target, credential: given });
      const view = connectionView(awaiting.connection);
      return reply.code(201).send({ ...view, authorize_url: awaiting.authorize_url });
    }
    const row = await registerConnection(ctx, { ...target, credential: given });
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
    const { connection, diff } = await refreshConnectionTools(ctx, id);
    return { ...connectionView(connection), ...diff };
  });

  app.post('/v1/connections/:id/reauthorize', async (request) => {
    await ctx.auth.operator(request);
    const { id } = validate(idParams, request.params, 'path');
    const body = validate(reauthorizeBody, request.body, 'body');
    if (body.credential.type === 'oauth') {
      const awaiting = await requestReauthorization(ctx, id);
      const { auth_generation, status } = awaiting.connection;
      return { id, auth_generation, status, authorize_url: awaiting.authorize_url };
    }
    const updated = await reauthorizeConnection(ctx, id, body.credential);
    return { id, auth_generation: updated.auth_generation };
  });

  app.delete('/v1/connections/:id', async (request) => {
    await ctx.auth.operator(request);
    const { id } = validate(idParams, request.params, 'path');
    const { connection, revoked_at_server } = await disconnect(ctx, id);
    return { id, status: connection.status, revoked_at_server };
  });
}
