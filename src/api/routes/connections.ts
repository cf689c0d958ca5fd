import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
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
import type { BearerCredential } from '../../broker/sealing.js';
import { guardToolSchemas } from '../../domain/tools/schema-guard.js';
import { effectSchema, type PhotographedTool } from '../../domain/tools/tools.js';
import {
  findConnection,
  type ConnectionRow,
  type ConnectionStatus,
} from '../../store/queries/connections.js';
import type { ApiContext } from '../context.js';
import { notFound } from '../problem.js';
import { json, timestamp } from '../route-schemas.js';

export const originName = z
  .string()
  .regex(
    /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/,
    'a name is 1 to 64 letters, digits, "_" or "-", starting with a letter or digit',
  );

const privateNetwork = z.boolean().optional().meta({
  description:
    "the server is inside the operator's network though its URL names a host: the name may resolve to an inside address (private or loopback), and what its servers name may be inside too",
});

const bearerCredential = z
  .object({
    type: z.literal('bearer'),
    token: z.string().min(1).max(8192),
    private_network: privateNetwork,
  })
  .strict();

/** The bearer credential to seal: the operator's word on the network kept only when said. */
function heldBearer(given: z.infer<typeof bearerCredential>): BearerCredential {
  return {
    type: 'bearer',
    token: given.token,
    ...(given.private_network === true && { private_network: true }),
  };
}

/** An OAuth scope token (RFC 6749 section 3.3): printable ASCII without spaces, quotes or "\\". */
const scopeToken = z.string().regex(/^[\x21\x23-\x5b\x5d-\x7e]{1,200}$/, 'not an OAuth scope');

const oauthCredential = z
  .object({
    type: z.literal('oauth'),
    scopes: z.array(scopeToken).max(50).optional(),
    client_id: z.string().min(1).max(512).optional(),
    client_secret: z.string().min(1).max(2048).optional(),
    private_network: privateNetwork,
  })
  .strict()
  .refine((c) => c.client_secret === undefined || c.client_id !== undefined, {
    error: 'a client_secret comes with its client_id',
    path: ['client_secret'],
  })
  .meta({ dependentRequired: { client_secret: ['client_id'] } });

const credential = z.discriminatedUnion('type', [bearerCredential, oauthCredential]);

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
  })
  .meta({
    oneOf: [
      { properties: { kind: { const: 'personal' } }, required: ['owner_user_id'] },
      { properties: { kind: { const: 'org' } }, not: { required: ['owner_user_id'] } },
    ],
  });

const reauthorizeBody = z
  .object({
    credential: z.discriminatedUnion('type', [
      bearerCredential,
      z.object({ type: z.literal('oauth'), private_network: privateNetwork }).strict(),
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

/** A tool of a photograph as the API shows it. */
export const toolAnswer = z.object({
  name: z.string(),
  mcp_name: z.string().optional(),
  effect: effectSchema,
  digest: z.string(),
  callable: z.boolean(),
  uncallable_reason: z.string().optional(),
});
export const unusableAnswer = z.object({ mcp_name: z.string(), reason: z.string() });
const connectionStatus = z.enum([
  'awaiting_authorization',
  'active',
  'needs_reauthorization',
  'revoked',
] as const satisfies readonly ConnectionStatus[]);

const connectionAnswer = z.object({
  id: z.uuid(),
  workspace: z.uuid(),
  name: z.string(),
  kind: z.enum(['org', 'personal']),
  owner_user_id: z.uuid().nullable(),
  url: z.string(),
  status: connectionStatus,
  /** Why the connection needs its owner again, in words the owner can act on. */
  status_reason: z.string().optional(),
  credential_type: z.enum(['bearer', 'oauth']),
  /** The scopes an OAuth connection asks for; absent: the server's choice. */
  scopes: z.array(z.string()).optional(),
  auth_generation: z.number().int(),
  tools: z.array(toolAnswer),
  unusable: z.array(unusableAnswer),
  digest: z.string(),
  photographed_at: timestamp,
  last_used_at: timestamp.nullable(),
  /** An OAuth connection's page where the right person authorizes it. */
  authorize_url: z.string().optional(),
});
const names = z.array(z.string());
const refreshAnswer = connectionAnswer.extend({
  added: names,
  withdrawn: names,
  changed: names,
});

const reauthorizationAnswer = z.object({
  id: z.uuid(),
  auth_generation: z.number().int(),
  status: connectionStatus.optional(),
  authorize_url: z.string().optional(),
});
const disconnectionAnswer = z.object({
  id: z.uuid(),
  status: connectionStatus,
  revoked_at_server: z.boolean(),
});

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

const tags = ['tools'];
const config = { caller: 'operator' } as const;

export function connectionRoutes(server: FastifyInstance, ctx: ApiContext) {
  const app = server.withTypeProvider<ZodTypeProvider>();

  app.post(
    '/v1/connections',
    {
      config,
      schema: {
        operationId: 'createConnection',
        summary:
          'Register a brokered MCP server: a bearer one is photographed now, an OAuth one waits for its owner',
        tags,
        body: connectionBody,
        response: { 201: json('registered', connectionAnswer) },
      },
    },
    async (request, reply) => {
      const { credential: given, ...target } = request.body;
      if (given.type === 'oauth') {
        const awaiting = await registerOAuthConnection(ctx, { ...target, credential: given });
        const view = connectionView(awaiting.connection);
        return reply.code(201).send({ ...view, authorize_url: awaiting.authorize_url });
      }
      const row = await registerConnection(ctx, { ...target, credential: heldBearer(given) });
      return reply.code(201).send(connectionView(row));
    },
  );

  app.get(
    '/v1/connections/:id',
    {
      config,
      schema: {
        operationId: 'getConnection',
        summary: 'A connection and its photograph',
        tags,
        params: idParams,
        response: { 200: json('the connection', connectionAnswer) },
      },
    },
    async (request) => {
      const { id } = request.params;
      const row = await findConnection(ctx.pool, id);
      if (!row) throw notFound(`connection ${id}`);
      return connectionView(row);
    },
  );

  app.post(
    '/v1/connections/:id/tools/refresh',
    {
      config,
      schema: {
        operationId: 'refreshConnectionTools',
        summary: 'Photograph the tools again and show what changed',
        tags,
        params: idParams,
        response: { 200: json('the new photograph', refreshAnswer) },
      },
    },
    async (request) => {
      const { connection, diff } = await refreshConnectionTools(ctx, request.params.id);
      return { ...connectionView(connection), ...diff };
    },
  );

  app.post(
    '/v1/connections/:id/reauthorize',
    {
      config,
      schema: {
        operationId: 'reauthorizeConnection',
        summary:
          'Replace the credential (bindings frozen before now refuse), or for OAuth a new authorize_url',
        tags,
        params: idParams,
        body: reauthorizeBody,
        response: { 200: json('reauthorised', reauthorizationAnswer) },
      },
    },
    async (request) => {
      const { id } = request.params;
      const { credential } = request.body;
      if (credential.type === 'oauth') {
        const awaiting = await requestReauthorization(ctx, id, credential.private_network);
        const { auth_generation, status } = awaiting.connection;
        return { id, auth_generation, status, authorize_url: awaiting.authorize_url };
      }
      const updated = await reauthorizeConnection(ctx, id, heldBearer(credential));
      return { id, auth_generation: updated.auth_generation };
    },
  );

  app.delete(
    '/v1/connections/:id',
    {
      config,
      schema: {
        operationId: 'revokeConnection',
        summary:
          "Revoke a connection (an OAuth one's tokens at its server too, when it offers revocation)",
        tags,
        params: idParams,
        response: { 200: json('revoked', disconnectionAnswer) },
      },
    },
    async (request) => {
      const { connection, revoked_at_server } = await disconnect(ctx, request.params.id);
      return { id: connection.id, status: connection.status, revoked_at_server };
    },
  );
}
