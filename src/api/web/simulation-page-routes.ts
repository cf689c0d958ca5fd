import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { simulatePolicy } from '../../application/simulate-policy.js';
import { findPolicyVersion } from '../../store/policies.js';
import type { ApiContext } from '../context.js';
import { notFound, Problem } from '../problem.js';
import {
  policyParams,
  simulateBody,
  simulationRequest,
  temporalRecordedCalls,
} from '../routes/policies.js';
import { validate } from '../validation.js';
import { sendPage } from './layout.js';
import { signedIn } from './session.js';
import { simulationPage } from './simulation-page.js';

export const simulationQuery = z
  .object({
    version: z.coerce
      .number()
      .int()
      .min(1)
      .max(2 ** 31 - 1),
    since: z.string().optional(),
    until: z.string().optional(),
  })
  .strict();

/** Deadline of a page's simulation: a person waits for it. */
const pageDeadlineMs = 20_000;

/** `GET /policies/{id}/simulate?version=n`: for an admin of the policy's workspace. */
export function simulationPageRoutes(web: FastifyInstance, ctx: ApiContext) {
  web.get('/policies/:id/simulate', async (request, reply) => {
    const { id } = validate(policyParams, request.params, 'path');
    const query = validate(simulationQuery, request.query, 'query');
    const session = await signedIn(ctx, request);
    if (!session) {
      return reply.redirect(
        `/login?next=${encodeURIComponent(request.url.split('?')[0] ?? '/')}`,
        303,
      );
    }
    const { member } = session;
    if (member.role !== 'admin')
      throw new Problem(403, 'only an admin of the workspace simulates its policies');
    const latest = await findPolicyVersion(ctx.pool, id);
    if (latest?.workspace_id !== member.workspace_id) throw notFound(`policy ${id}`);
    const body = validate(simulateBody, query, 'query');
    const candidate = await findPolicyVersion(ctx.pool, id, query.version);
    if (!candidate) throw notFound(`version ${query.version} of policy ${id}`);
    const result = await simulatePolicy(
      ctx.pool,
      temporalRecordedCalls(ctx),
      simulationRequest(id, body),
      { workspace: member.workspace_id, showArguments: false },
      pageDeadlineMs,
    );
    // The versions that decided the calls, beside the candidate (a few: runs freeze the latest).
    const recorded = await Promise.all(
      result.recorded_versions.slice(-3).map((version) => findPolicyVersion(ctx.pool, id, version)),
    );
    return sendPage(
      reply,
      200,
      simulationPage(
        session,
        {
          name: latest.body.name,
          recorded: recorded.filter((version) => version !== undefined),
          candidate,
        },
        result,
      ),
    );
  });
}
