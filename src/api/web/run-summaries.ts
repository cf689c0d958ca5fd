import type { RunSource, TrustTier } from '../../domain/trust-tier.js';
import type { Queryable } from '../../store/pool.js';

/** What an approver is shown about the run that asked: where it comes from and who started it. */
export interface RunSummary {
  id: string;
  source: RunSource;
  trust_tier: TrustTier;
  policy_id: string;
  invoked_by_name: string;
}

export async function findRunSummaries(
  db: Queryable,
  runIds: readonly string[],
): Promise<Map<string, RunSummary>> {
  if (runIds.length === 0) return new Map();
  const { rows } = await db.query<RunSummary>(
    `select r.id, r.source, r.trust_tier, r.policy_id, m.name as invoked_by_name
     from runs r join members m on m.id = r.invoked_by
     where r.id = any($1::uuid[])`,
    [[...new Set(runIds)]],
  );
  return new Map(rows.map((row) => [row.id, row]));
}

/** The repository a run works on: named outright, else a pull request's base. */
export function repositoryOf(source: RunSource): string | undefined {
  if (source.repository) return source.repository;
  if (source.kind === 'pull_request') return source.pull_request?.base_repo ?? undefined;
  return undefined;
}
