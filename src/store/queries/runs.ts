/** Runs as the API reads them: by id, by session, by a session token's hash, and listed. */
export {
  findRun,
  findRunBySessionId,
  findRunBySessionTokenHash,
  findRunSummaries,
  KnownRuns,
  type FrozenRun,
  type RunSummary,
} from '../runs.js';
