import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  endMemberSession,
  memberAccessEvents,
  memberSessions,
  memberTokens,
  mintScimToken,
  revokeMemberToken,
  revokeScimToken,
} from '../../application/member-access.js';
import type { ApiContext } from '../context.js';
import { empty, json, timestamp } from '../route-schemas.js';
import { memberParams, workspaceParams } from './workspaces.js';

const memberTokenParams = memberParams.extend({ token_id: z.uuid() }).strict();
const memberSessionParams = memberParams.extend({ web_session_id: z.uuid() }).strict();

const personalTokenAnswer = z.object({
  id: z.uuid(),
  name: z.string(),
  created_at: timestamp,
  expires_at: timestamp,
  revoked_at: timestamp.nullable(),
});
const webSessionAnswer = z.object({
  id: z.uuid(),
  created_at: timestamp,
  expires_at: timestamp,
  last_seen_at: timestamp,
});
const accessEventAnswer = z.object({
  seq: z.number().int(),
  type: z.string(),
  subject_id: z.uuid().nullable(),
  actor: z.enum(['operator', 'identity_provider', 'sign_in', 'member']),
  at: timestamp,
});
const scimTokenAnswer = z.object({ scim_token: z.string() });

const tags = ['workspaces'];

/**
 * The operator's hold on a member's access: their personal tokens and web sessions, listed and
 * revoked one by one, and the workspace's SCIM token, minted (again, to rotate) and revoked.
 */
export function memberAccessRoutes(server: FastifyInstance, ctx: ApiContext) {
  const app = server.withTypeProvider<ZodTypeProvider>();
  const config = { caller: 'operator' } as const;

  app.get(
    '/v1/workspaces/:ws/members/:user_id/tokens',
    {
      config,
      schema: {
        operationId: 'listMemberTokens',
        summary: "List a member's personal API tokens (never the tokens themselves)",
        tags,
        params: memberParams,
        response: { 200: json('the tokens, newest first', z.array(personalTokenAnswer)) },
      },
    },
    async (request) => memberTokens(ctx.pool, request.params.ws, request.params.user_id),
  );

  app.delete(
    '/v1/workspaces/:ws/members/:user_id/tokens/:token_id',
    {
      config,
      schema: {
        operationId: 'revokeMemberToken',
        summary: "Revoke a member's personal API token: refused from its next use",
        tags,
        params: memberTokenParams,
        response: { 204: empty('revoked') },
      },
    },
    async (request, reply) => {
      const { ws, user_id, token_id } = request.params;
      await revokeMemberToken(ctx.pool, ws, user_id, token_id);
      return reply.code(204).send(null);
    },
  );

  app.get(
    '/v1/workspaces/:ws/members/:user_id/sessions',
    {
      config,
      schema: {
        operationId: 'listMemberSessions',
        summary: "List a member's open web sessions",
        tags,
        params: memberParams,
        response: { 200: json('the sessions, newest first', z.array(webSessionAnswer)) },
      },
    },
    async (request) => memberSessions(ctx.pool, request.params.ws, request.params.user_id),
  );

  app.delete(
    '/v1/workspaces/:ws/members/:user_id/sessions/:web_session_id',
    {
      config,
      schema: {
        operationId: 'endMemberSession',
        summary: "End a member's web session: its next request is signed out",
        tags,
        params: memberSessionParams,
        response: { 204: empty('ended') },
      },
    },
    async (request, reply) => {
      const { ws, user_id, web_session_id } = request.params;
      await endMemberSession(ctx.pool, ws, user_id, web_session_id);
      return reply.code(204).send(null);
    },
  );

  app.get(
    '/v1/workspaces/:ws/members/:user_id/access-events',
    {
      config,
      schema: {
        operationId: 'listMemberAccessEvents',
        summary:
          "What changed a member's access: suspensions, reactivations, roles, and each session, token, grant, connection and run a suspension ended",
        tags,
        params: memberParams,
        response: { 200: json('the events, oldest first', z.array(accessEventAnswer)) },
      },
    },
    async (request) => {
      const events = await memberAccessEvents(ctx.pool, request.params.ws, request.params.user_id);
      return events.map(({ seq, type, subject_id, actor, at }) => ({
        seq: Number(seq),
        type,
        subject_id,
        actor,
        at,
      }));
    },
  );

  app.post(
    '/v1/workspaces/:ws/scim-token',
    {
      config,
      schema: {
        operationId: 'mintScimToken',
        summary:
          "Mint the workspace's SCIM provisioning token, returned once; the one before stops at once",
        tags,
        params: workspaceParams,
        response: { 201: json('minted', scimTokenAnswer) },
      },
    },
    async (request, reply) => {
      const token = await mintScimToken(ctx.pool, request.params.ws);
      return reply.code(201).send({ scim_token: token });
    },
  );

  app.delete(
    '/v1/workspaces/:ws/scim-token',
    {
      config,
      schema: {
        operationId: 'revokeScimToken',
        summary: "Revoke the workspace's SCIM provisioning token",
        tags,
        params: workspaceParams,
        response: { 204: empty('revoked') },
      },
    },
    async (request, reply) => {
      await revokeScimToken(ctx.pool, request.params.ws);
      return reply.code(204).send(null);
    },
  );
}
