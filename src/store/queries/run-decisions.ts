/** The latest decisions of a run's tool calls. */
export { latestRunDecisions, type RunDecision } from '../run-decisions.js';
