import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { mintPersonalToken, revokeOwnPersonalToken } from '../../application/personal-tokens.js';
import { listPersonalTokens } from '../../store/queries/personal-tokens.js';
import type { ApiContext } from '../context.js';
import { notFound } from '../problem.js';
import { empty, media } from '../route-schemas.js';
import { toLoginAnswer, visitorOf } from './admission.js';
import { sendPage, webFormTags as tags } from './layout.js';
import { personalTokensPage } from './personal-tokens-page.js';

const personalTokenForm = z
  .object({
    csrf: z.string(),
    name: z.string().trim().min(1).max(100),
    days: z.coerce.number().int().min(1).max(365),
  })
  .strict();
const revokeForm = z.object({ csrf: z.string() }).strict();
const personalTokenParams = z.object({ id: z.uuid() }).strict();

const config = { caller: 'browser' } as const;
/** Minting or revoking one's own token holds none of the member's write slots. */
const postConfig = { ...config, web: { writes: false } } as const;
const form = { consumes: ['application/x-www-form-urlencoded'] };

/** A signed-in member's own API tokens, in the web app. */
export function personalTokenRoutes(server: FastifyInstance, ctx: ApiContext) {
  const web = server.withTypeProvider<ZodTypeProvider>();
  web.get(
    '/tokens',
    {
      config,
      schema: {
        operationId: 'personalTokensPage',
        summary: "The signed-in member's own API tokens",
        tags,
        response: { 200: media('the page'), 303: toLoginAnswer },
      },
    },
    async (request, reply) => {
      const session = visitorOf(request);
      const tokens = await listPersonalTokens(ctx.pool, session.member.id);
      return sendPage(reply, 200, personalTokensPage(session, tokens));
    },
  );

  web.post(
    '/tokens',
    {
      config: postConfig,
      schema: {
        operationId: 'mintPersonalToken',
        summary: 'Mint a named, expiring API token that acts as the signed-in member; shown once',
        tags,
        ...form,
        body: personalTokenForm,
        response: { 201: media('the token, this once, and the list') },
      },
    },
    async (request, reply) => {
      const session = visitorOf(request);
      const { name, days } = request.body;
      const { token } = await mintPersonalToken(ctx.pool, session.member, { name, days });
      const tokens = await listPersonalTokens(ctx.pool, session.member.id);
      return sendPage(reply, 201, personalTokensPage(session, tokens, { name, token }));
    },
  );

  web.post(
    '/tokens/:id/revoke',
    {
      config: postConfig,
      schema: {
        operationId: 'revokePersonalToken',
        summary: 'Revoke one of your API tokens',
        tags,
        ...form,
        params: personalTokenParams,
        body: revokeForm,
        response: { 303: empty('revoked; back to the list') },
      },
    },
    async (request, reply) => {
      const { id } = request.params;
      if (!(await revokeOwnPersonalToken(ctx.pool, visitorOf(request).member, id))) {
        throw notFound(`active token ${id} of yours`);
      }
      return reply.redirect('/tokens', 303);
    },
  );
}
