import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { pingDatabase } from '../../store/queries/database.js';
import type { ApiContext } from '../context.js';
import { json, media } from '../route-schemas.js';

async function within<T>(ms: number, work: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      work,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => {
          reject(new Error(`no answer within ${ms} ms`));
        }, ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

const reachability = z.enum(['ok', 'down']);
const readinessAnswer = z.object({
  status: z.enum(['ready', 'not ready']),
  postgres: reachability,
  temporal: reachability,
});

const tags = ['operations'];

export function operationRoutes(server: FastifyInstance, ctx: ApiContext) {
  const app = server.withTypeProvider<ZodTypeProvider>();

  app.get(
    '/healthz',
    {
      config: { caller: 'anyone' },
      schema: {
        operationId: 'health',
        summary: 'The process is up',
        tags,
        response: { 200: json('up', z.object({ status: z.literal('ok') })) },
      },
    },
    () => ({ status: 'ok' as const }),
  );

  app.get(
    '/readyz',
    {
      config: { caller: 'anyone' },
      schema: {
        operationId: 'readiness',
        summary: 'PostgreSQL and Temporal are reachable',
        tags,
        response: {
          200: json('ready', readinessAnswer),
          503: json('a dependency is down', readinessAnswer),
        },
      },
    },
    async (request, reply) => {
      const checks = await Promise.allSettled([
        within(2000, pingDatabase(ctx.pool)),
        within(2000, ctx.gate.ping()),
      ]);
      // Anyone may ask: the answer says what is down, the reason goes to the log only.
      const [postgres = 'down', temporal = 'down'] = checks.map((c) => {
        if (c.status === 'fulfilled') return 'ok' as const;
        request.log.warn({ err: c.reason }, 'a dependency is not ready');
        return 'down' as const;
      });
      const ready = checks.every((c) => c.status === 'fulfilled');
      return reply
        .code(ready ? 200 : 503)
        .send({ status: ready ? 'ready' : 'not ready', postgres, temporal });
    },
  );

  // Series name routes, workspaces' activity and what is refused: the operator's to read.
  app.get(
    '/metrics',
    {
      config: { caller: 'operator' },
      schema: {
        operationId: 'metrics',
        summary: 'Prometheus metrics of this API process',
        tags,
        response: { 200: media('Prometheus text format', 'text/plain') },
      },
    },
    async (_request, reply) =>
      reply.type(ctx.metrics.registry.contentType).send(await ctx.metrics.registry.metrics()),
  );
}
