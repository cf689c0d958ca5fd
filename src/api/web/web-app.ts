import type { FastifyError, FastifyInstance } from 'fastify';
import { isUnavailableError } from '../../store/pool.js';
import type { ApiContext } from '../context.js';
import { Problem } from '../problem.js';
import { approvalPageRoutes } from './approval-page-routes.js';
import { approvalStreamRoute } from './approval-stream.js';
import { clientScript } from './client-script.js';
import { errorPage } from './error-page.js';
import { acceptFormBodies } from './form-body.js';
import { htmlSecurityHeaders, sendPage } from './layout.js';
import { loginRoutes } from './login-routes.js';
import { stylesheet } from './stylesheet.js';

/** What an error means for a person at a browser; the JSON API's problems are untouched. */
function statusAndDetail(err: unknown): { status: number; detail: string } {
  if (err instanceof Problem) return { status: err.status, detail: err.detail };
  const fastifyError = err as Partial<FastifyError>;
  const status = fastifyError.statusCode;
  if (typeof status === 'number' && status >= 400 && status < 500) {
    return { status, detail: fastifyError.message ?? 'the request was not understood' };
  }
  if (isUnavailableError(err)) {
    return { status: 503, detail: 'the database is unavailable; try again shortly' };
  }
  return { status: 500, detail: 'an internal error occurred' };
}

/**
 * The approvers' web form: sign-in, the live list of pending approvals and the detail page with
 * Approve / Deny. Registered as its own plugin so its form parser, HTML error pages and security
 * headers stay out of the JSON API.
 */
export function webRoutes(app: FastifyInstance, ctx: ApiContext): void {
  void app.register((web, _options, done) => {
    acceptFormBodies(web);
    web.addHook('onSend', async (_request, reply, payload) => {
      for (const [name, value] of Object.entries(htmlSecurityHeaders)) {
        if (!reply.hasHeader(name)) void reply.header(name, value);
      }
      return payload;
    });
    web.setErrorHandler((err, request, reply) => {
      const { status, detail } = statusAndDetail(err);
      if (status >= 500) request.log.error({ err }, 'web request failed');
      if (status === 503) void reply.header('retry-after', '1');
      return sendPage(reply, status, errorPage(status, detail));
    });

    web.get('/approvals/app.js', (_request, reply) =>
      reply
        .type('text/javascript; charset=utf-8')
        .header('cache-control', 'no-cache')
        .send(clientScript),
    );
    web.get('/approvals/app.css', (_request, reply) =>
      reply.type('text/css; charset=utf-8').header('cache-control', 'no-cache').send(stylesheet),
    );
    loginRoutes(web, ctx);
    approvalPageRoutes(web, ctx);
    approvalStreamRoute(web, ctx);
    done();
  });
}
