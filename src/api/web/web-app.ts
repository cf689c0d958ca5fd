import type { FastifyInstance } from 'fastify';
import type { ApiContext } from '../context.js';
import { problemFor } from '../error-mapping.js';
import { media } from '../route-schemas.js';
import { admitVisitors } from './admission.js';
import { approvalPageRoutes } from './approval-page-routes.js';
import { approvalStreamRoute } from './approval-stream.js';
import { runPageRoutes } from './run-page-routes.js';
import { clientScript } from './client-script.js';
import { connectionPageRoutes } from './connection-page-routes.js';
import { errorPage } from './error-page.js';
import { acceptFormBodies } from './form-body.js';
import { htmlSecurityHeaders, sendPage, webFormTags as tags } from './layout.js';
import { loginRoutes } from './login-routes.js';
import { oauthAuthorizationRoutes } from './oauth-authorization-routes.js';
import { runProfilePageRoutes } from './run-profile-page-routes.js';
import { oidcRoutes } from './oidc-routes.js';
import { operatorPage } from './operator-page.js';
import { personalTokenRoutes } from './personal-token-routes.js';
import { OperatorSessionError } from './session.js';
import { simulationPageRoutes } from './simulation-page-routes.js';
import { stylesheet } from './stylesheet.js';

/**
 * The approvers' web form: sign-in, the live list of pending approvals and the detail page with
 * Approve / Deny. Registered as its own plugin so its visitors' admission, form parser, HTML error
 * pages and security headers stay out of the JSON API, and every route in it is admitted.
 */
export function webRoutes(app: FastifyInstance, ctx: ApiContext): void {
  void app.register((web, _options, done) => {
    admitVisitors(web, ctx);
    acceptFormBodies(web);
    web.addHook('onSend', async (_request, reply, payload) => {
      for (const [name, value] of Object.entries(htmlSecurityHeaders)) {
        if (!reply.hasHeader(name)) void reply.header(name, value);
      }
      return payload;
    });
    web.setErrorHandler((err, request, reply) => {
      if (err instanceof OperatorSessionError)
        return sendPage(reply, 403, operatorPage(err.session));
      // The JSON API's mapping, shown as a page: one meaning for every error.
      const { status, detail } = problemFor(err);
      if (status >= 500) request.log.error({ err }, 'web request failed');
      if (status === 503) void reply.header('retry-after', '1');
      return sendPage(reply, status, errorPage(status, detail));
    });

    const asset = (operationId: string, summary: string, mediaType: string) => ({
      config: { caller: 'anyone' as const },
      schema: { operationId, summary, tags, response: { 200: media(summary, mediaType) } },
    });
    web.get(
      '/approvals/app.js',
      asset('approvalsScript', "The pages' script", 'text/javascript'),
      (_request, reply) =>
        reply
          .type('text/javascript; charset=utf-8')
          .header('cache-control', 'no-cache')
          .send(clientScript),
    );
    web.get(
      '/approvals/app.css',
      asset('approvalsStylesheet', "The pages' stylesheet", 'text/css'),
      (_request, reply) =>
        reply.type('text/css; charset=utf-8').header('cache-control', 'no-cache').send(stylesheet),
    );
    loginRoutes(web, ctx);
    oidcRoutes(web, ctx);
    personalTokenRoutes(web, ctx);
    approvalPageRoutes(web, ctx);
    approvalStreamRoute(web, ctx);
    simulationPageRoutes(web, ctx);
    connectionPageRoutes(web, ctx);
    runPageRoutes(web, ctx);
    oauthAuthorizationRoutes(web, ctx);
    runProfilePageRoutes(web, ctx);
    done();
  });
}
