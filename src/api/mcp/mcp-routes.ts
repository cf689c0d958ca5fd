import { randomUUID } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import {
  DEFAULT_NEGOTIATED_PROTOCOL_VERSION,
  isInitializeRequest,
} from '@modelcontextprotocol/sdk/types.js';
import { endMcpSession, isOpenMcpSession, openMcpSession } from '../../store/mcp-sessions.js';
import { oauthNames } from '../../application/mcp-oauth/resource.js';
import { callerKey } from '../caller-slots.js';
import type { ApiContext } from '../context.js';
import { Problem, sendProblem } from '../problem.js';
import { mcpChallenge, mcpPrincipal, McpUnauthenticated, type McpPrincipal } from './bearer.js';
import { gateMcpServer } from './gate-mcp-server.js';
import { ProfileChangeNotices } from './profile-change-notices.js';
import { RevocationWatch } from './revocation-watch.js';

const sessionHeader = 'mcp-session-id';

/** A JSON-RPC error answered before any MCP server sees the request. */
function jsonRpcError(reply: FastifyReply, status: number, code: number, message: string) {
  return reply
    .code(status)
    .type('application/json')
    .send({ jsonrpc: '2.0', error: { code, message }, id: null });
}

/**
 * `/mcp`: the gate as a remote MCP server (Streamable HTTP). Every request is answered by a
 * server and a stateless transport of its own, so any API process answers any request; the
 * only state between requests, a session (`Mcp-Session-Id`, for the clients that keep one), is
 * a row in PostgreSQL bound to the run whose token opened it. A client without one is answered
 * all the same. `GET` holds a stream open for server notices: `notifications/tools/list_changed`
 * when the run is revoked.
 */
export function mcpRoutes(server: FastifyInstance, ctx: ApiContext) {
  const watch = new RevocationWatch(ctx.pool);
  const profileNotices = new ProfileChangeNotices(ctx.pool);
  const { resource } = oauthNames(ctx.publicUrl);
  server.addHook('onClose', () => {
    watch.close();
    profileNotices.close();
  });

  server.route({
    method: ['POST', 'GET', 'DELETE'],
    url: '/mcp',
    config: { caller: 'anyone' },
    handler: async (request, reply) => {
      let principal: McpPrincipal;
      try {
        principal = await mcpPrincipal(ctx.pool, request, resource);
      } catch (err) {
        if (!(err instanceof McpUnauthenticated)) throw err;
        const error = err.options.tokenPresented ? 'invalid_token' : undefined;
        void reply.header('www-authenticate', mcpChallenge(ctx.publicUrl, error));
        return sendProblem(reply, new Problem(401, err.message));
      }
      // As the REST routes do: a run holds at most so many calls in flight, and streams open.
      const caller = callerKey({ kind: 'runner', run: principal.run });
      if (request.method === 'POST') ctx.slots.holdFor(reply.raw, 'writes', caller);
      if (request.method === 'GET') ctx.slots.holdFor(reply.raw, 'streams', caller);
      const sessionId = request.headers[sessionHeader];
      if (Array.isArray(sessionId)) {
        return jsonRpcError(reply, 400, -32600, 'Mcp-Session-Id may be sent once');
      }
      if (request.method === 'DELETE') {
        if (sessionId === undefined) {
          return jsonRpcError(reply, 405, -32600, 'there is no session to end: none was sent');
        }
        if (
          !uuidPattern.test(sessionId) ||
          !(await endMcpSession(ctx.pool, sessionId, principal.run.id))
        ) {
          return jsonRpcError(reply, 404, -32001, 'Session not found');
        }
        return reply.code(200).send();
      }
      // One message a request: a batch would hold a hundred calls on one of the run's slots (the
      // 2025-06-18 revision took batches out of the protocol).
      if (request.method === 'POST' && Array.isArray(request.body)) {
        return jsonRpcError(
          reply,
          400,
          -32600,
          'send one JSON-RPC message a request: batches are not accepted',
        );
      }
      const initializing = request.method === 'POST' && isInitializeRequest(request.body);
      if (initializing && principal.revoked) {
        return jsonRpcError(reply, 403, -32600, 'this run has ended: no session opens for it');
      }
      if (sessionId !== undefined && !initializing) {
        const open = await sessionOpen(ctx, sessionId, principal);
        if (!open) return jsonRpcError(reply, 404, -32001, 'Session not found');
      }
      if (initializing) {
        const id = randomUUID();
        await openMcpSession(ctx.pool, {
          id,
          runId: principal.run.id,
          protocolVersion: initializeVersion(request.body),
        });
        reply.raw.setHeader(sessionHeader, id);
      }
      const mcp = gateMcpServer(ctx, principal, request.id);
      // A stream opened after its run was revoked is told at the next look too: its client may
      // have listed the tools before the revocation.
      if (request.method === 'GET') {
        reply.raw.on('close', watch.add(principal.run.id, mcp));
        reply.raw.on('close', profileNotices.add(principal.run.id, mcp));
      }
      await answer(request, reply, mcp);
    },
  });
}

const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

async function sessionOpen(ctx: ApiContext, sessionId: string, principal: McpPrincipal) {
  if (!uuidPattern.test(sessionId)) return false;
  return isOpenMcpSession(ctx.pool, sessionId, principal.run.id);
}

function initializeVersion(body: unknown): string {
  const version = (body as { params?: { protocolVersion?: unknown } }).params?.protocolVersion;
  return typeof version === 'string' && version.length <= 64
    ? version
    : DEFAULT_NEGOTIATED_PROTOCOL_VERSION;
}

/** Hands the request to a stateless transport of its own, closed with the connection. */
async function answer(request: FastifyRequest, reply: FastifyReply, mcp: McpServer) {
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
  await mcp.connect(transport);
  reply.hijack();
  reply.raw.on('close', () => {
    void mcp.close().catch(() => undefined);
  });
  await transport.handleRequest(request.raw, reply.raw, request.body);
}
