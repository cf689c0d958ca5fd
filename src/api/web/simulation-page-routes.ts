import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { simulatePolicy } from '../../application/simulate-policy.js';
import { findPolicyVersion } from '../../store/queries/policies.js';
import type { ApiContext } from '../context.js';
import { notFound, Problem } from '../problem.js';
import {
  policyParams,
  simulateBody,
  simulationRequest,
  temporalRecordedCalls,
} from '../routes/policies.js';
import { media } from '../route-schemas.js';
import { toLoginAnswer, visitorOf } from './admission.js';
import { sendPage, webFormTags as tags } from './layout.js';
import { simulationPage } from './simulation-page.js';

const simulationFields = z
  .object({
    version: z.coerce
      .number()
      .int()
      .min(1)
      .max(2 ** 31 - 1),
    since: z.iso.datetime({ offset: true }).optional(),
    until: z.iso.datetime({ offset: true }).optional(),
  })
  .strict();
/** The page simulates what the API's simulation would, its body read from the query. */
const simulationQuery = simulationFields.pipe(
  simulateBody as z.ZodType<z.output<typeof simulateBody>, z.output<typeof simulationFields>>,
);

/** `GET /policies/{id}/simulate?version=n`: for an admin of the policy's workspace. */
export function simulationPageRoutes(server: FastifyInstance, ctx: ApiContext) {
  const web = server.withTypeProvider<ZodTypeProvider>();
  web.get(
    '/policies/:id/simulate',
    {
      config: { caller: 'browser' },
      schema: {
        operationId: 'simulationPage',
        summary:
          "A version on the policy's recorded calls, beside the latest version's rules (admins)",
        tags,
        params: policyParams,
        querystring: simulationQuery,
        response: { 200: media('the page'), 303: toLoginAnswer },
      },
    },
    async (request, reply) => {
      const { id } = request.params;
      const { query } = request;
      const session = visitorOf(request);
      const { member } = session;
      if (member.role !== 'admin')
        throw new Problem(403, 'only an admin of the workspace simulates its policies');
      const latest = await findPolicyVersion(ctx.pool, id);
      if (latest?.workspace_id !== member.workspace_id) throw notFound(`policy ${id}`);
      const version = query.version ?? 0;
      const candidate = await findPolicyVersion(ctx.pool, id, version);
      if (!candidate) throw notFound(`version ${version} of policy ${id}`);
      const result = await simulatePolicy(
        ctx.pool,
        temporalRecordedCalls(ctx),
        simulationRequest(id, query),
        { member },
        ctx.simulation,
      );
      // The versions that decided the calls, beside the candidate (a few: runs freeze the latest).
      const recorded = await Promise.all(
        result.recorded_versions
          .slice(-3)
          .map((recordedVersion) => findPolicyVersion(ctx.pool, id, recordedVersion)),
      );
      return sendPage(
        reply,
        200,
        simulationPage(
          session,
          {
            name: latest.body.name,
            recorded: recorded.filter((recordedVersion) => recordedVersion !== undefined),
            candidate,
          },
          result,
        ),
      );
    },
  );
}
