import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { formatUsd, parseUsd } from '../../domain/budget/pricing.js';
import {
  changeSpendBudgetCaps,
  createSpendBudget,
  removeSpendBudget,
} from '../../application/spend-budgets.js';
import {
  findSpendBudget,
  listSpendBudgets,
  type SpendBudgetRow,
} from '../../store/queries/spend-budgets.js';
import { callerWorkspace } from '../callers.js';
import type { ApiContext } from '../context.js';
import { Problem, notFound } from '../problem.js';
import { empty, json, timestamp } from '../route-schemas.js';

/** Money in the API: US dollars as a decimal string, exact to the nano-dollar. */
/** The largest cap in whole dollars whose nano-dollars are still exact. */
const maxUsdWhole = 9_000_000;
const usdAmount = z
  .string()
  .regex(
    /^(0|[1-9][0-9]{0,8})(\.[0-9]{1,9})?$/,
    'must be US dollars, e.g. "12.50", at most 9 decimals',
  )
  .refine((text) => (parseUsd(text) ?? 0) > 0, 'must be more than zero')
  // Nano-dollars are counted exactly up to 2^53: a larger cap would be rounded, so it is refused.
  .refine(
    (text) => {
      const nanos = parseUsd(text);
      return nanos !== undefined && Number.isSafeInteger(nanos) && nanos <= maxUsdWhole * 1e9;
    },
    `must be at most ${String(maxUsdWhole)} US dollars`,
  );
const maxTokens = z.number().int().min(1).max(1_000_000_000_000);

const budgetBody = z
  .object({
    workspace: z.uuid(),
    level: z.enum(['run', 'person', 'team', 'workspace']),
    /** The run, for level `run`. */
    run: z.uuid().optional(),
    /** The member, for level `person`. */
    person: z.uuid().optional(),
    /** The identity provider group's display name, for level `team`. */
    team: z.string().min(1).max(256).optional(),
    period: z.enum(['day', 'month', 'life']),
    max_usd: usdAmount.optional(),
    max_tokens: maxTokens.optional(),
  })
  .strict()
  .superRefine((body, ctx) => {
    const subjects = { run: 'run', person: 'person', team: 'team' } as const;
    for (const [level, field] of Object.entries(subjects)) {
      const given = body[field] !== undefined;
      if (body.level === level && !given)
        ctx.addIssue({ code: 'custom', message: `is required for level ${level}`, path: [field] });
      if (body.level !== level && given)
        ctx.addIssue({
          code: 'custom',
          message: `is only for level ${level}, not ${body.level}`,
          path: [field],
        });
    }
    if (body.max_usd === undefined && body.max_tokens === undefined)
      ctx.addIssue({
        code: 'custom',
        message: 'a budget caps money, tokens or both: give max_usd or max_tokens',
        path: ['max_usd'],
      });
  });

const budgetCapsBody = z
  .object({
    max_usd: usdAmount.nullable().optional(),
    max_tokens: maxTokens.nullable().optional(),
  })
  .strict();

const budgetParams = z.object({ id: z.uuid() }).strict();
const budgetQuery = z.object({ workspace: z.uuid() }).strict();

const budgetAnswer = z.object({
  id: z.uuid(),
  workspace: z.uuid(),
  level: z.enum(['run', 'person', 'team', 'workspace']),
  run: z.uuid().nullable(),
  person: z.uuid().nullable(),
  team: z.string().nullable(),
  period: z.enum(['day', 'month', 'life']),
  max_usd: z.string().nullable(),
  max_tokens: z.number().int().nullable(),
  /** The current period's start (UTC); null for a budget for life. */
  period_start: timestamp.nullable(),
  spent_usd: z.string(),
  held_usd: z.string(),
  used_tokens: z.number().int(),
  held_tokens: z.number().int(),
  created_at: timestamp,
  updated_at: timestamp,
});

function budgetView(row: SpendBudgetRow) {
  return {
    id: row.id,
    workspace: row.workspace_id,
    level: row.level,
    run: row.run_id,
    person: row.member_id,
    team: row.team,
    period: row.period,
    max_usd: row.max_nanos === null ? null : formatUsd(row.max_nanos),
    max_tokens: row.max_tokens,
    period_start: row.window_start,
    spent_usd: formatUsd(row.used_nanos),
    held_usd: formatUsd(row.held_nanos),
    used_tokens: row.used_tokens,
    held_tokens: row.held_tokens,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

const nanosOf = (usd: string | null | undefined) =>
  usd === undefined || usd === null ? null : (parseUsd(usd) ?? null);

const tags = ['budgets'];
const config = { caller: 'admin' } as const;

export function spendBudgetRoutes(server: FastifyInstance, ctx: ApiContext) {
  const app = server.withTypeProvider<ZodTypeProvider>();

  /** A budget the caller may manage: any for the operator, its own workspace's for an admin. */
  async function reachable(
    request: Parameters<typeof callerWorkspace>[0],
    id: string,
  ): Promise<SpendBudgetRow> {
    const row = await findSpendBudget(ctx.pool, id);
    const { workspace } = callerWorkspace(request);
    if (!row || (workspace !== undefined && row.workspace_id !== workspace))
      throw notFound(`budget ${id}`);
    return row;
  }

  app.post(
    '/v1/budgets',
    {
      config,
      schema: {
        operationId: 'createBudget',
        summary:
          "Cap a level's model spend (run, person, team, workspace) per day, month or for life",
        tags,
        body: budgetBody,
        response: { 201: json('the budget', budgetAnswer) },
      },
    },
    async (request, reply) => {
      const { body } = request;
      const { workspace } = callerWorkspace(request);
      if (workspace !== undefined && workspace !== body.workspace)
        throw notFound(`workspace ${body.workspace}`);
      const creation = await createSpendBudget(ctx.pool, {
        workspace_id: body.workspace,
        level: body.level,
        run_id: body.run ?? null,
        member_id: body.person ?? null,
        team: body.team ?? null,
        period: body.period,
        max_nanos: nanosOf(body.max_usd),
        max_tokens: body.max_tokens ?? null,
      });
      if (creation.kind === 'unknown_workspace') throw notFound(`workspace ${body.workspace}`);
      if (creation.kind === 'foreign_subject') {
        const field = body.run ? 'run' : 'person';
        throw new Problem(400, `the ${field} is not one of the workspace's`, {
          errors: [{ path: `body.${field}`, message: 'is not in the workspace' }],
        });
      }
      if (creation.kind === 'taken')
        throw new Problem(
          409,
          `this ${body.level} already has a budget per ${body.period}: change its caps with PUT /v1/budgets/{id}`,
        );
      const row = creation.budget;
      return reply.code(201).send(budgetView(row));
    },
  );

  app.get(
    '/v1/budgets',
    {
      config,
      schema: {
        operationId: 'listBudgets',
        summary: "A workspace's budgets, with what each has spent in its current period",
        tags,
        querystring: budgetQuery,
        response: { 200: json('the budgets', z.object({ budgets: z.array(budgetAnswer) })) },
      },
    },
    async (request) => {
      const { workspace } = callerWorkspace(request);
      if (workspace !== undefined && workspace !== request.query.workspace)
        throw notFound(`workspace ${request.query.workspace}`);
      const rows = await listSpendBudgets(ctx.pool, request.query.workspace);
      return { budgets: rows.map(budgetView) };
    },
  );

  app.get(
    '/v1/budgets/:id',
    {
      config,
      schema: {
        operationId: 'getBudget',
        summary: 'A budget and what it has spent in its current period',
        tags,
        params: budgetParams,
        response: { 200: json('the budget', budgetAnswer) },
      },
    },
    async (request) => budgetView(await reachable(request, request.params.id)),
  );

  app.put(
    '/v1/budgets/:id',
    {
      config,
      schema: {
        operationId: 'updateBudgetCaps',
        summary: "Change a budget's caps; a field left out keeps its cap, null removes it",
        tags,
        params: budgetParams,
        body: budgetCapsBody,
        response: { 200: json('the budget', budgetAnswer) },
      },
    },
    async (request) => {
      const row = await reachable(request, request.params.id);
      const { max_usd: maxUsd, max_tokens: maxTokens } = request.body;
      const updated = await changeSpendBudgetCaps(ctx.pool, row.id, {
        max_nanos: maxUsd === undefined ? undefined : nanosOf(maxUsd),
        max_tokens: maxTokens,
      });
      if (updated === 'absent') throw notFound(`budget ${row.id}`);
      if (updated === 'uncapped')
        throw new Problem(400, 'a budget caps money, tokens or both: delete it instead', {
          errors: [
            {
              path: maxUsd === null ? 'body.max_usd' : 'body.max_tokens',
              message: 'would leave the budget without a cap',
            },
          ],
        });
      return budgetView(updated);
    },
  );

  app.delete(
    '/v1/budgets/:id',
    {
      config,
      schema: {
        operationId: 'deleteBudget',
        summary: 'Remove a budget; spend already recorded stays in the ledger',
        tags,
        params: budgetParams,
        response: { 204: empty('removed') },
      },
    },
    async (request, reply) => {
      const row = await reachable(request, request.params.id);
      await removeSpendBudget(ctx.pool, row.id);
      return reply.code(204).send(null);
    },
  );
}
