/** A run's token allowance: what is booked and used of it. */
export { findBudget, type BudgetFigures } from '../budget.js';
