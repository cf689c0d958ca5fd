import type pg from 'pg';
import { prepared, type Queryable } from './pool.js';
import type { Booking, SpendLevel } from '../domain/budget/spend-levels.js';

/**
 * The spend counters of every level a model request falls under, inside the admission's or the
 * settlement's transaction. Window rows are always locked in budget id order (after the run's
 * budget row), so two transactions never wait on each other in a cycle.
 */

/** A run's budget in tokens and its spend in money, as its row holds them. */
export interface BudgetFigures {
  max_tokens: number;
  held_tokens: number;
  used_tokens: number;
  /** The run's spend in money (nano-dollars), held and settled, whatever caps apply. */
  held_nanos: number;
  used_nanos: number;
}

export interface LockedLevel extends SpendLevel {
  budget_id: string;
  window_start: Date;
}

/** The condition on `spend_budgets b` of the budgets a request of the run falls under. */
export const budgetsOfSubject = (workspace: string, run: string, member: string) =>
  `b.workspace_id = ${workspace}
  and (b.level = 'workspace'
    or (b.level = 'run' and b.run_id = ${run})
    or (b.level = 'person' and b.member_id = ${member})
    or (b.level = 'team' and b.team in (
      select g.attributes ->> 'displayName' from scim_resources g
      where g.workspace_id = ${workspace} and g.kind = 'Group'
        and g.attributes -> 'members' @> jsonb_build_array(jsonb_build_object('value', ${member}::text)))))`;

/** A run's own budget and the levels above it, as the gate's budget stage reads them. */
export interface RunSpend {
  budget: BudgetFigures;
  levels: SpendLevel[];
}

/**
 * The run's budget and the levels above it as they stand in the current period, read without
 * locking (the gate's budget stage: a tool call of a run with a spent level stops), in one
 * statement: a row per level beside the run's figures, or one row with no level.
 */
export async function findRunSpend(db: Queryable, runId: string): Promise<RunSpend> {
  const { rows } = await db.query<BudgetFigures & Nullable<LevelColumns>>(
    prepared(
      `select rb.max_tokens, rb.held_tokens, rb.used_tokens, rb.held_nanos, rb.used_nanos,
       l.level_kind, l.level_name, l.level_period, l.level_max_nanos, l.level_max_tokens,
       l.level_held_nanos, l.level_used_nanos, l.level_held_tokens, l.level_used_tokens
     from run_budgets rb
     left join lateral (
       select b.level as level_kind, b.period as level_period, b.max_nanos as level_max_nanos,
         b.max_tokens as level_max_tokens,
         coalesce(w.held_nanos, 0) as level_held_nanos, coalesce(w.used_nanos, 0) as level_used_nanos,
         coalesce(w.held_tokens, 0) as level_held_tokens,
         coalesce(w.used_tokens, 0) as level_used_tokens,
         case b.level when 'person' then m.name when 'team' then b.team end as level_name
       from runs r
       join spend_budgets b on ${budgetsOfSubject('r.workspace_id', 'r.id', 'r.invoked_by')}
       left join members m on m.id = b.member_id
       left join spend_budget_windows w
         on w.budget_id = b.id and w.window_start = spend_window_start(b.period, now())
       where r.id = rb.run_id
     ) l on true
     where rb.run_id = $1`,
      [runId],
    ),
  );
  const [first] = rows;
  // The row is opened with the run (a trigger), so a missing one is an unknown run.
  if (!first) throw new Error(`run ${runId} has no budget`);
  const { max_tokens, held_tokens, used_tokens, held_nanos, used_nanos } = first;
  return {
    budget: { max_tokens, held_tokens, used_tokens, held_nanos, used_nanos },
    levels: rows.flatMap((row) => (isLevel(row) ? [levelOf(row)] : [])),
  };
}

/** A level's columns, named apart from the run's own figures in the same row. */
interface LevelColumns {
  level_kind: SpendLevel['kind'];
  level_name: string | null;
  level_period: SpendLevel['period'];
  level_max_nanos: number | null;
  level_max_tokens: number | null;
  level_held_nanos: number;
  level_used_nanos: number;
  level_held_tokens: number;
  level_used_tokens: number;
}

type Nullable<T> = { [K in keyof T]: T[K] | null };

function isLevel(row: Nullable<LevelColumns>): row is LevelColumns {
  return row.level_kind !== null;
}

function levelOf(row: LevelColumns): SpendLevel {
  return {
    kind: row.level_kind,
    name: row.level_name,
    period: row.level_period,
    max_nanos: row.level_max_nanos,
    max_tokens: row.level_max_tokens,
    held_nanos: row.level_held_nanos,
    used_nanos: row.level_used_nanos,
    held_tokens: row.level_held_tokens,
    used_tokens: row.level_used_tokens,
  };
}

/**
 * The ids of the budgets a request of the run falls under, in id order, as a column of a query
 * whose $1, $2 and $3 are the workspace, the run and the member: admission reads it in the
 * statement that locks the run's budget row, one round trip for both.
 */
export const spendBudgetIdsSql = `array(select b.id from spend_budgets b where ${budgetsOfSubject('$1', '$2', '$3')}
  order by b.id)::text[]`;

/**
 * Opens this period's window of each budget (`budgetIds`, in id order: see spendBudgetIdsSql)
 * and locks them, in budget id order.
 */
export async function lockSpendLevels(
  tx: pg.PoolClient,
  budgetIds: readonly string[],
): Promise<LockedLevel[]> {
  if (budgetIds.length === 0) return [];
  // One row at a time, in id order: a window another admission is opening is waited for in the
  // same order the locks below are taken.
  for (const id of budgetIds) {
    await tx.query(
      `insert into spend_budget_windows (budget_id, window_start)
       select id, spend_window_start(period, now()) from spend_budgets where id = $1
       on conflict do nothing`,
      [id],
    );
  }
  const { rows } = await tx.query<LockedLevel>(
    `select w.budget_id, w.window_start, b.level as kind, b.period, b.max_nanos, b.max_tokens,
       w.held_nanos, w.used_nanos, w.held_tokens, w.used_tokens,
       case b.level when 'person' then m.name when 'team' then b.team end as name
     from spend_budget_windows w
     join spend_budgets b on b.id = w.budget_id
     left join members m on m.id = b.member_id
     where w.budget_id = any($1::uuid[]) and w.window_start = spend_window_start(b.period, now())
     order by w.budget_id
     for update of w`,
    [budgetIds],
  );
  return rows;
}

/**
 * A hold booked at every level locked, as CTEs following an admission's insert (`changed`, the
 * reservation): each window's held figures raised by the booking, and the windows it was booked
 * in recorded; nothing for a refusal. The windows are locked already (lockSpendLevels), so this
 * takes no lock of its own. `budgetIds` and `windowStarts` are the statement's parameters that
 * hold `levelHoldValues`.
 */
export function levelHoldsSql(budgetIds: string, windowStarts: string): string {
  const levels = `unnest(${budgetIds}::uuid[], ${windowStarts}::timestamptz[])
    as l (budget_id, window_start)`;
  return `level_held as (
       update spend_budget_windows w set held_nanos = w.held_nanos + c.booked_nanos,
         held_tokens = w.held_tokens + c.booked_tokens
       from changed c, ${levels}
       where c.status = 'held' and w.budget_id = l.budget_id and w.window_start = l.window_start
     ), level_holds as (
       insert into model_reservation_holds (reservation_id, budget_id, window_start)
       select c.id, l.budget_id, l.window_start from changed c, ${levels}
       where c.status = 'held'
     )`;
}

/** The parameters of levelHoldsSql: the locked levels' budget ids and window starts. */
export function levelHoldValues(levels: readonly LockedLevel[]): [string[], Date[]] {
  return [levels.map((level) => level.budget_id), levels.map((level) => level.window_start)];
}

interface LevelSettlement {
  /** What leaves `held` (the booking, or 0 when the sweep released it already). */
  released: Booking;
  /** What is added to `used` (negative when real usage replaces a larger expiry charge). */
  charged: Booking;
}

/**
 * Moves a hold's figures at every level it was booked in (windows still there: a budget
 * deleted meanwhile took its windows with it), locking them in budget id order.
 */
export async function settleAtLevels(
  tx: pg.PoolClient,
  reservationId: string,
  { released, charged }: LevelSettlement,
): Promise<void> {
  const { rows } = await tx.query<{ budget_id: string; window_start: Date }>(
    `select w.budget_id, w.window_start from spend_budget_windows w
     join model_reservation_holds h
       on h.budget_id = w.budget_id and h.window_start = w.window_start
     where h.reservation_id = $1
     order by w.budget_id
     for update of w`,
    [reservationId],
  );
  for (const row of rows) {
    await tx.query(
      `update spend_budget_windows set
         held_nanos = held_nanos - $3, held_tokens = held_tokens - $4,
         used_nanos = used_nanos + $5, used_tokens = used_tokens + $6
       where budget_id = $1 and window_start = $2`,
      [
        row.budget_id,
        row.window_start,
        released.nanos,
        released.tokens,
        charged.nanos,
        charged.tokens,
      ],
    );
  }
}
