import { readsCallArguments } from '../domain/gate/approval.js';
import type { RunId } from '../domain/gate/ids.js';
import type { PolicyBody } from '../domain/policy/policy.js';
import {
  Simulation,
  type RecordedCall,
  type SimulatedRun,
  type SimulatedVerdict,
  type SimulationReport,
} from '../domain/policy/simulation.js';
import type { FrozenTool } from '../domain/tools/tools.js';
import { approvalAuthoritiesOfSession } from '../store/approvals.js';
import type { Member } from '../store/members.js';
import { findPolicyVersion, type PolicyVersion } from '../store/policies.js';
import type { Pool } from '../store/pool.js';
import { findRun } from '../store/runs.js';
import { sessionsOfPolicy, sessionsWithCallsOf } from '../store/tool-calls.js';
import type { RecordedWindow } from '../temporal/recorded-calls.js';
import { InvalidInputError, NotFoundError, UnavailableError } from '../domain/errors.js';
import {
  ThreadStoppedError,
  type CandidateThread,
  type SimulationThreads,
} from './simulation-thread.js';

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

/**
 * Who simulates: an admin of the policy's workspace, or the operator (no member), who reads every
 * call and sees argument values, as with the codec.
 */
interface SimulationViewer {
  member?: Member;
}

/** What bounds one simulation: its deadline, and the threads that evaluate candidates. */
export interface SimulationBounds {
  deadlineMs: number;
  threads: SimulationThreads;
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
  const workspace = viewer.member?.workspace_id;
  if (!latest || (workspace !== undefined && latest.workspace_id !== workspace)) {
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
type RunSnapshot = SimulatedRun & {
  policy_id: string;
  policy_version: number;
  invoked_by: string;
};

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
            invoked_by: found.invoked_by,
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
 * Whether the viewer may read a call's arguments: the operator reads every call, a member only
 * what the approval API shows them. Each session's approvals are read once.
 */
class ArgumentReaders {
  private readonly sessions = new Map<string, ReturnType<typeof approvalAuthoritiesOfSession>>();
  constructor(
    private readonly pool: Pool,
    private readonly member: Member | undefined,
  ) {}

  async mayRead(call: RecordedCall, run: RunSnapshot): Promise<boolean> {
    const { member } = this;
    if (!member) return true;
    let approvals = this.sessions.get(call.session_id);
    if (!approvals) {
      approvals = approvalAuthoritiesOfSession(this.pool, call.session_id);
      this.sessions.set(call.session_id, approvals);
    }
    return readsCallArguments((await approvals).get(call.tool_call_id), member, run.invoked_by);
  }
}

/** Verdicts asked of the thread ahead of their counting: enough to keep it busy, no flood. */
const verdictsAhead = 32;

/**
 * What a candidate would have decided on the policy's recorded calls in a window, each with its
 * own run's frozen snapshot. Calls of runs under other policies are not the policy's: skipped.
 * A call whose arguments the viewer may not read is withheld: counted as such, never evaluated,
 * so nothing in the answer depends on it. Reads until the window ends, `limit` calls are read, or
 * the deadline passes; the candidate is evaluated in a thread, stopped at the deadline wherever
 * its evaluation is.
 */
export async function simulatePolicy(
  pool: Pool,
  recorded: RecordedCalls,
  request: SimulationRequest,
  viewer: SimulationViewer,
  bounds: SimulationBounds,
): Promise<SimulationResult> {
  const policy = await policyFor(pool, request.policy_id, viewer);
  const candidate = await candidateOf(pool, policy, request);
  return bounds.threads.with(candidate, (thread) =>
    simulateOn(thread, pool, recorded, request, viewer, bounds.deadlineMs),
  );
}

async function simulateOn(
  thread: CandidateThread,
  pool: Pool,
  recorded: RecordedCalls,
  request: SimulationRequest,
  viewer: SimulationViewer,
  deadlineMs: number,
): Promise<SimulationResult> {
  // Argument values only for the operator.
  const simulation = new Simulation(viewer.member === undefined);
  const runs = new RunSnapshots(pool);
  const readers = new ArgumentReaders(pool, viewer.member);
  const recordedVersions = new Set<number>();
  const stop = new AbortController();
  const deadline = setTimeout(() => {
    stop.abort();
    void thread.stop();
  }, deadlineMs);
  const ahead: { call: RecordedCall; verdict: Promise<SimulatedVerdict> }[] = [];
  const countOne = async () => {
    const next = ahead.shift();
    if (next) simulation.add(next.call, await next.verdict);
  };
  let read = 0;
  let stoppedBy: SimulationResult['stopped_by'] = null;
  try {
    // Only the sessions of the policy's own runs are read, not every call of the window, and of
    // the sessions named, only the policy's own.
    const sessions = request.window.sessions
      ? await sessionsOfPolicy(pool, request.policy_id, request.window.sessions)
      : await sessionsWithCallsOf(pool, request.policy_id, request.window);
    const calls =
      sessions.length === 0 ? [] : recorded({ ...request.window, sessions }, stop.signal);
    for await (const call of calls) {
      if (stop.signal.aborted) break;
      const run = await runs.get(call.run_id);
      if (run?.policy_id !== request.policy_id) continue;
      if (read >= request.limit) {
        stoppedBy = 'limit';
        break;
      }
      read += 1;
      recordedVersions.add(run.policy_version);
      if (!(await readers.mayRead(call, run))) {
        simulation.withhold();
        continue;
      }
      const verdict = thread.verdict(call, run);
      // Counted in order; a verdict the stopped thread never gives is not counted.
      verdict.catch(() => undefined);
      ahead.push({ call, verdict });
      if (ahead.length >= verdictsAhead) await countOne();
    }
    while (ahead.length > 0) await countOne();
  } catch (err) {
    if (!(err instanceof ThreadStoppedError)) throw err;
    // Stopped by its bound on memory, not its deadline: nothing partial is worth an answer.
    if (!stop.signal.aborted) {
      throw new UnavailableError(
        `the simulation's evaluation stopped (${err.message}): simulate a shorter window or a smaller candidate`,
      );
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
