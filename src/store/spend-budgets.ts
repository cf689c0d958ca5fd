import type { SpendLevelKind, SpendPeriod } from '../domain/budget/spend-levels.js';
import type { Queryable } from './pool.js';

/** The caps an admin sets on a level's model spend, with what the current period has spent. */

/** A level's caps as an admin sets them. */
export interface NewSpendBudget {
  workspace_id: string;
  level: SpendLevelKind;
  run_id: string | null;
  member_id: string | null;
  team: string | null;
  period: SpendPeriod;
  max_nanos: number | null;
  max_tokens: number | null;
}

export interface SpendBudgetRow extends NewSpendBudget {
  id: string;
  created_at: Date;
  updated_at: Date;
  /** The current period's counters (zero when nothing was booked in it yet). */
  window_start: Date | null;
  held_nanos: number;
  used_nanos: number;
  held_tokens: number;
  used_tokens: number;
}

const selectBudgets = `
  select b.id, b.workspace_id, b.level, b.run_id, b.member_id, b.team, b.period, b.max_nanos,
    b.max_tokens, b.created_at, b.updated_at,
    case when b.period = 'life' then null else spend_window_start(b.period, now()) end
      as window_start,
    coalesce(w.held_nanos, 0) as held_nanos, coalesce(w.used_nanos, 0) as used_nanos,
    coalesce(w.held_tokens, 0) as held_tokens, coalesce(w.used_tokens, 0) as used_tokens
  from spend_budgets b
  left join spend_budget_windows w
    on w.budget_id = b.id and w.window_start = spend_window_start(b.period, now())`;

/** Undefined when the level already has a budget for that period. */
export async function insertSpendBudget(
  db: Queryable,
  budget: NewSpendBudget,
): Promise<SpendBudgetRow | undefined> {
  const { rows } = await db.query<{ id: string }>(
    `insert into spend_budgets (workspace_id, level, run_id, member_id, team, period, max_nanos,
       max_tokens)
     values ($1, $2, $3, $4, $5, $6, $7, $8)
     on conflict do nothing
     returning id`,
    [
      budget.workspace_id,
      budget.level,
      budget.run_id,
      budget.member_id,
      budget.team,
      budget.period,
      budget.max_nanos,
      budget.max_tokens,
    ],
  );
  return rows[0] ? findSpendBudget(db, rows[0].id) : undefined;
}

export async function findSpendBudget(
  db: Queryable,
  id: string,
): Promise<SpendBudgetRow | undefined> {
  const { rows } = await db.query<SpendBudgetRow>(`${selectBudgets} where b.id = $1`, [id]);
  return rows[0];
}

export async function listSpendBudgets(
  db: Queryable,
  workspaceId: string,
): Promise<SpendBudgetRow[]> {
  const { rows } = await db.query<SpendBudgetRow>(
    `${selectBudgets} where b.workspace_id = $1 order by b.level, b.created_at, b.id`,
    [workspaceId],
  );
  return rows;
}

/** A cap to set (a number, or null to remove it); undefined keeps the cap as it is. */
export interface CapsChange {
  max_nanos?: number | null;
  max_tokens?: number | null;
}

/**
 * New caps for a budget, in one statement, so two changes at once each apply to what the other
 * left: 'absent' when there is no such budget, 'uncapped' (nothing changed) when the change would
 * leave it with no cap at all. Holds already booked stay; a cap lowered under what is spent
 * refuses every admission at that level until the next period.
 */
export async function updateSpendBudgetCaps(
  db: Queryable,
  id: string,
  change: CapsChange,
): Promise<SpendBudgetRow | 'absent' | 'uncapped'> {
  const { rows } = await db.query<{ updated: boolean }>(
    `with changed as (
       select id,
         case when $2 then $3::bigint else max_nanos end as max_nanos,
         case when $4 then $5::bigint else max_tokens end as max_tokens
       from spend_budgets where id = $1 for update
     ), updated as (
       update spend_budgets b set max_nanos = c.max_nanos, max_tokens = c.max_tokens,
         updated_at = now()
       from changed c
       where b.id = c.id and (c.max_nanos is not null or c.max_tokens is not null)
       returning b.id
     )
     select exists (select 1 from updated) as updated from changed`,
    [
      id,
      change.max_nanos !== undefined,
      change.max_nanos ?? null,
      change.max_tokens !== undefined,
      change.max_tokens ?? null,
    ],
  );
  if (!rows[0]) return 'absent';
  if (!rows[0].updated) return 'uncapped';
  return (await findSpendBudget(db, id)) ?? 'absent';
}

/**
 * Removes a budget and its counters. Holds booked under it settle at the levels that remain;
 * each exchange's cost stays in the ledger and the usage entries.
 */
export async function deleteSpendBudget(db: Queryable, id: string): Promise<boolean> {
  const { rowCount } = await db.query('delete from spend_budgets where id = $1', [id]);
  return (rowCount ?? 0) > 0;
}

/** Whether a run or member named as a level's subject is one of the workspace's. */
export async function levelSubjectInWorkspace(
  db: Queryable,
  workspaceId: string,
  subject: { run_id: string | null; member_id: string | null },
): Promise<boolean> {
  const { rows } = await db.query<{ found: boolean }>(
    `select ($2::uuid is null or exists (select 1 from runs where id = $2 and workspace_id = $1))
        and ($3::uuid is null or exists (select 1 from members where id = $3 and workspace_id = $1))
        as found`,
    [workspaceId, subject.run_id, subject.member_id],
  );
  return rows[0]?.found === true;
}
