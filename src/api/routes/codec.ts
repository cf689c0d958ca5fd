/**
 * Temporal's remote codec protocol, for the Temporal UI and CLI: `POST /codec/decode` opens the
 * gate's encrypted payloads, `POST /codec/encode` seals some. Payloads carry no workspace and one
 * key opens every workspace's, so the codec is the operator's alone: the operator key, or the
 * operator's web session (signed in with that key, for the Temporal UI). No member, whatever
 * their role, decodes or encodes. Browsers only from the configured origins (the Temporal UI's).
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Payload } from '@temporalio/common';
import { PayloadDecryptionError } from '../../temporal/payload-codec.js';
import type { ApiContext } from '../context.js';
import { Problem } from '../problem.js';
import { empty, json } from '../route-schemas.js';
import { webSession } from '../web/session.js';

const base64 = z.base64('must be base64');
const payloadsBody = z
  .object({
    payloads: z
      .array(
        z
          .object({
            metadata: z.record(z.string().max(256), base64).optional(),
            data: base64.optional(),
          })
          .strict(),
      )
      .max(10_000),
  })
  .strict();

const payloadsAnswer = z.object({
  payloads: z.array(z.object({ metadata: z.record(z.string(), z.string()), data: z.string() })),
});

type WirePayload = z.infer<typeof payloadsBody>['payloads'][number];

function fromWire(payload: WirePayload): Payload {
  const metadata = Object.entries(payload.metadata ?? {}).map(
    ([key, value]) => [key, Buffer.from(value, 'base64')] as const,
  );
  return {
    metadata: Object.fromEntries(metadata),
    data: Buffer.from(payload.data ?? '', 'base64'),
  };
}

function toWire(payload: Payload): z.output<typeof payloadsAnswer>['payloads'][number] {
  const metadata = Object.entries(payload.metadata ?? {}).map(
    ([key, value]) => [key, Buffer.from(value).toString('base64')] as const,
  );
  return {
    metadata: Object.fromEntries(metadata),
    data: Buffer.from(payload.data ?? new Uint8Array()).toString('base64'),
  };
}

/** The operator key as a Bearer token, else the operator's web session; nobody else. */
async function authoriseCodec(ctx: ApiContext, request: FastifyRequest): Promise<void> {
  if (request.headers.authorization) return ctx.auth.operator(request);
  const session = await webSession(ctx, request);
  if (session?.holder.kind === 'operator') return;
  if (session) {
    throw new Problem(
      403,
      "only the operator decodes or encodes payloads: they hold every workspace's arguments and results",
    );
  }
  throw new Problem(
    401,
    'the operator key ("Authorization: Bearer <key>"), or a web session signed in with it, is required',
  );
}

function allowOrigin(ctx: ApiContext, request: FastifyRequest, reply: FastifyReply): void {
  const origin = request.headers.origin;
  if (!origin || !ctx.codecCorsOrigins.includes(origin)) return;
  void reply
    .header('access-control-allow-origin', origin)
    .header('access-control-allow-credentials', 'true')
    .header('vary', 'origin');
}

const tags = ['operations'];
const summaries = {
  encode: 'Encrypts payloads as the gate stores them in Temporal (codec server protocol)',
  decode: 'Opens payloads stored in Temporal, for the Temporal UI and CLI (codec server protocol)',
};

export function codecRoutes(server: FastifyInstance, ctx: ApiContext) {
  const app = server.withTypeProvider<ZodTypeProvider>();
  for (const operation of ['encode', 'decode'] as const) {
    const url = `/codec/${operation}`;
    app.options(
      url,
      {
        config: { caller: 'anyone' },
        schema: {
          operationId: `codec${operation === 'encode' ? 'Encode' : 'Decode'}Preflight`,
          summary: `A browser's CORS preflight for ${url}`,
          tags,
          response: { 204: empty('the allowed methods and headers') },
        },
      },
      async (request, reply) => {
        allowOrigin(ctx, request, reply);
        return reply
          .code(204)
          .header('access-control-allow-methods', 'POST')
          .header('access-control-allow-headers', 'authorization, content-type, x-namespace')
          .header('access-control-max-age', '600')
          .send(null);
      },
    );

    app.post(
      url,
      {
        config: { caller: 'codec' },
        // The allowed origin is named on a refusal too, so the Temporal UI can read why.
        onRequest: async (request, reply) => {
          allowOrigin(ctx, request, reply);
          await authoriseCodec(ctx, request);
        },
        schema: {
          operationId: `codec${operation === 'encode' ? 'Encode' : 'Decode'}`,
          summary: summaries[operation],
          tags,
          body: payloadsBody,
          response: { 200: json('the payloads', payloadsAnswer) },
        },
      },
      async (request) => {
        try {
          const coded = await ctx.codec[operation](request.body.payloads.map(fromWire));
          return { payloads: coded.map(toWire) };
        } catch (err) {
          if (err instanceof PayloadDecryptionError) throw new Problem(400, err.message);
          throw err;
        }
      },
    );
  }
}
