/** Spend budgets with what each has spent in its current period. */
export { findSpendBudget, listSpendBudgets, type SpendBudgetRow } from '../spend-budgets.js';
