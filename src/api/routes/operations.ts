import type { FastifyInstance } from 'fastify';
import { pingDatabase } from '../../store/pool.js';
import type { ApiContext } from '../context.js';

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

export function operationRoutes(app: FastifyInstance, ctx: ApiContext) {
  app.get('/healthz', () => ({ status: 'ok' }));

  app.get('/readyz', async (request, reply) => {
    const checks = await Promise.allSettled([
      within(2000, pingDatabase(ctx.pool)),
      within(2000, ctx.gate.ping()),
    ]);
    // Anyone may ask: the answer says what is down, the reason goes to the log only.
    const [postgres, temporal] = checks.map((c) => {
      if (c.status === 'fulfilled') return 'ok';
      request.log.warn({ err: c.reason }, 'a dependency is not ready');
      return 'down';
    });
    const ready = checks.every((c) => c.status === 'fulfilled');
    return reply
      .code(ready ? 200 : 503)
      .send({ status: ready ? 'ready' : 'not ready', postgres, temporal });
  });

  // Series name routes, workspaces' activity and what is refused: the operator's to read.
  app.get('/metrics', async (request, reply) => {
    await ctx.auth.operator(request);
    return reply.type(ctx.metrics.registry.contentType).send(await ctx.metrics.registry.metrics());
  });
}
