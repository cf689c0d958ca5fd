import type { Pool } from '../store/pool.js';
import {
  deleteSpendBudget,
  insertSpendBudget,
  levelSubjectInWorkspace,
  updateSpendBudgetCaps,
  type CapsChange,
  type NewSpendBudget,
  type SpendBudgetRow,
} from '../store/spend-budgets.js';
import { workspaceExists } from '../store/workspaces.js';

type BudgetCreation =
  | { kind: 'created'; budget: SpendBudgetRow }
  | { kind: 'unknown_workspace' }
  /** The run or person named as the level's subject is not one of the workspace's. */
  | { kind: 'foreign_subject' }
  /** The level already has a budget for that period. */
  | { kind: 'taken' };

/** Caps a level's model spend in a workspace, one budget per level and period. */
export async function createSpendBudget(
  pool: Pool,
  budget: NewSpendBudget,
): Promise<BudgetCreation> {
  if (!(await workspaceExists(pool, budget.workspace_id))) return { kind: 'unknown_workspace' };
  const subject = { run_id: budget.run_id, member_id: budget.member_id };
  if (!(await levelSubjectInWorkspace(pool, budget.workspace_id, subject)))
    return { kind: 'foreign_subject' };
  const created = await insertSpendBudget(pool, budget);
  return created ? { kind: 'created', budget: created } : { kind: 'taken' };
}

/**
 * Changes a budget's caps in one statement (a cap left undefined stays): 'absent' when the budget
 * is gone, 'uncapped' (nothing changed) when the change would leave it with no cap.
 */
export function changeSpendBudgetCaps(
  pool: Pool,
  id: string,
  change: CapsChange,
): Promise<SpendBudgetRow | 'absent' | 'uncapped'> {
  return updateSpendBudgetCaps(pool, id, change);
}

/** Removes a budget; holds booked under it settle at the levels that remain. */
export function removeSpendBudget(pool: Pool, id: string): Promise<boolean> {
  return deleteSpendBudget(pool, id);
}
