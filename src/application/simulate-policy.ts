import type { RunId } from '../domain/gate/ids.js';
import type { PolicyBody } from '../domain/policy/policy.js';
import {
  Simulation,
  type RecordedCall,
  type SimulatedRun,
  type SimulationReport,
} from '../domain/policy/simulation.js';
import type { FrozenTool } from '../domain/tools/tools.js';
import { findPolicyVersion, type PolicyVersion } from '../store/policies.js';
import type { Pool } from '../store/pool.js';
import { findRun } from '../store/runs.js';
import { sessionsWithCallsOf } from '../store/tool-calls.js';
import type { RecordedWindow } from '../temporal/recorded-calls.js';
import { InvalidInputError, NotFoundError } from './errors.js';

/** Where recorded calls come from: Temporal, or exported history files. */
export type RecordedCalls = (
  window: RecordedWindow,
  signal: AbortSignal,
) => AsyncIterable<RecordedCall>;

export interface SimulationRequest {
  policy_id: string;
  /** A policy body, or a version of the policy: exactly one. */
  candidate?: PolicyBody;
  version?: number;
  window: RecordedWindow;
  limit: number;
}

export interface SimulationViewer {
  /** The workspace the caller administers; undefined for the operator, who sees every one. */
  workspace?: string;
  /** Whether the changed calls carry their argument values. */
  showArguments: boolean;
}

export interface SimulationResult extends SimulationReport {
  policy_id: string;
  /** The version the candidate is, when it is one. */
  candidate_version: number | null;
  /** The versions the evaluated calls' runs froze: what decided them. */
  recorded_versions: number[];
  since: string;
  until: string;
  /** False when the limit or the deadline stopped the reading before the window's end. */
  complete: boolean;
  stopped_by: 'limit' | 'deadline' | null;
}

/** The policy's latest version, as its owner sees it: unknown to another workspace's admin. */
async function policyFor(
  pool: Pool,
  policyId: string,
  viewer: SimulationViewer,
): Promise<PolicyVersion> {
  const latest = await findPolicyVersion(pool, policyId);
  if (!latest || (viewer.workspace !== undefined && latest.workspace_id !== viewer.workspace)) {
    throw new NotFoundError(`policy ${policyId}`);
  }
  return latest;
}

async function candidateOf(
  pool: Pool,
  policy: PolicyVersion,
  request: SimulationRequest,
): Promise<PolicyBody> {
  if (request.candidate) {
    if (request.candidate.workspace !== policy.workspace_id) {
      throw new InvalidInputError('the candidate names another workspace than its policy', [
        { path: 'candidate.workspace', message: "must be the policy's workspace" },
      ]);
    }
    return request.candidate;
  }
  const version = await findPolicyVersion(pool, policy.policy_id, request.version);
  if (!version) {
    throw new InvalidInputError(`policy ${policy.policy_id} has no version ${request.version}`, [
      { path: 'version', message: `at most ${policy.version}` },
    ]);
  }
  return version.body;
}

/** Frozen runs, read once each: a run's snapshot is immutable. */
type RunSnapshot = SimulatedRun & { policy_id: string; policy_version: number };

class RunSnapshots {
  private readonly runs = new Map<string, Promise<RunSnapshot | undefined>>();
  constructor(private readonly pool: Pool) {}

  get(runId: string): Promise<RunSnapshot | undefined> {
    let run = this.runs.get(runId);
    if (!run) {
      run = findRun(this.pool, runId as RunId).then(
        (found): RunSnapshot | undefined =>
          found && {
            policy_id: found.policy_id,
            policy_version: found.policy_version,
            autonomy: found.autonomy,
            tools: new Map<string, FrozenTool>(found.toolset.map((tool) => [tool.name, tool])),
          },
      );
      this.runs.set(runId, run);
    }
    return run;
  }
}

/**
 * What a candidate would have decided on the policy's recorded calls in a window, each with its
 * own run's frozen snapshot. Calls of runs under other policies are not the policy's: skipped.
 * Reads until the window ends, `limit` calls are evaluated, or `deadlineMs` passes.
 */
export async function simulatePolicy(
  pool: Pool,
  recorded: RecordedCalls,
  request: SimulationRequest,
  viewer: SimulationViewer,
  deadlineMs: number,
): Promise<SimulationResult> {
  const policy = await policyFor(pool, request.policy_id, viewer);
  const candidate = await candidateOf(pool, policy, request);
  const simulation = new Simulation(candidate, viewer.showArguments);
  const runs = new RunSnapshots(pool);
  const recordedVersions = new Set<number>();
  const stop = new AbortController();
  const deadline = setTimeout(() => {
    stop.abort();
  }, deadlineMs);
  let stoppedBy: SimulationResult['stopped_by'] = null;
  try {
    // Only the sessions of the policy's own runs are read, not every call of the window.
    const sessions =
      request.window.sessions ??
      (await sessionsWithCallsOf(pool, request.policy_id, request.window));
    const calls =
      sessions.length === 0 ? [] : recorded({ ...request.window, sessions }, stop.signal);
    for await (const call of calls) {
      if (stop.signal.aborted) break;
      const run = await runs.get(call.run_id);
      if (run?.policy_id !== request.policy_id) continue;
      if (simulation.count >= request.limit) {
        stoppedBy = 'limit';
        break;
      }
      simulation.add(call, run);
      recordedVersions.add(run.policy_version);
    }
  } finally {
    clearTimeout(deadline);
  }
  if (stoppedBy === null && stop.signal.aborted) stoppedBy = 'deadline';
  return {
    policy_id: request.policy_id,
    candidate_version: request.candidate ? null : (request.version ?? null),
    recorded_versions: [...recordedVersions].sort((a, b) => a - b),
    since: request.window.since.toISOString(),
    until: request.window.until.toISOString(),
    ...simulation.report(),
    complete: stoppedBy === null,
    stopped_by: stoppedBy,
  };
}
