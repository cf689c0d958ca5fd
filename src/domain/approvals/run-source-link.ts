import type { RunSource } from '../gate/trust-tier.js';

const repoPattern = /^[A-Za-z0-9_.-]+\/[A-Za-z0-9_.-]+$/;

/**
 * The pull request's page, when the run names one: sources come from GitHub's `pull_request`
 * webhook, so the link is GitHub's. A base repository that is not a plain `owner/name` gets none.
 */
export function pullRequestUrl(source: RunSource): string | undefined {
  if (source.kind !== 'pull_request') return undefined;
  const base = source.pull_request?.base_repo ?? source.repository;
  const number = source.pull_request?.number;
  if (!base || number === undefined || !repoPattern.test(base)) return undefined;
  return `https://github.com/${base}/pull/${number}`;
}
