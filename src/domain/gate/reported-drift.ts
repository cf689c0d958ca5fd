import type { StageOutcome } from './vocabulary.js';

/** How a tool's digest is written: `sha256:` and 64 lower-case hex digits. */
export const toolDigestPattern = /^sha256:[0-9a-f]{64}$/;

/**
 * Part of stage 2 for a tool the runner serves itself: the digest the runner observed on the
 * sandbox's server now (null when that server no longer lists the tool) against the digest the
 * run froze. A report can only deny: an equal digest passes on to the other checks, and a call
 * without a report is judged as before.
 */
export function reportedDriftVerdict(
  tool: { name: string; digest: string },
  observed: string | null | undefined,
): StageOutcome {
  if (observed === undefined || observed === tool.digest) return { outcome: 'pass' };
  const reason =
    observed === null
      ? `"${tool.name}" is no longer offered by its server in the sandbox: withdrawn since the run froze it`
      : `"${tool.name}" drifted since the run froze it: its server in the sandbox now describes it differently (${observed})`;
  return { outcome: 'deny', source: 'capability', reason };
}
