import type { RunSource } from '../../domain/gate/trust-tier.js';

export { findRunSummaries, type RunSummary } from '../../store/queries/runs.js';

/** The repository a run works on: named outright, else a pull request's base. */
export function repositoryOf(source: RunSource): string | undefined {
  if (source.repository) return source.repository;
  if (source.kind === 'pull_request') return source.pull_request?.base_repo ?? undefined;
  return undefined;
}
