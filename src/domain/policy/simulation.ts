/**
 * Policy simulation: what a candidate policy would have decided on calls the gate recorded. Each
 * call is read with its own run's frozen facts (tools, autonomy); the stages before policy stand
 * as recorded, so a call denied by its schema stays denied whatever the candidate says.
 */
import { decisionFromPolicy } from '../gate/decisions.js';
import { policyVerdict } from '../gate/stage-verdicts.js';
import type { DenySource } from '../gate/vocabulary.js';
import type { FrozenTool } from '../tools/tools.js';
import type { PolicyBody } from './policy.js';

/** What a call came to: a decision, or a question to a person ("would ask"). */
export type SimulatedOutcome = 'allow' | 'deny' | 'ask';

/** A call as its gate workflow recorded it: the request, and the answer it got. */
export interface RecordedCall {
  session_id: string;
  tool_call_id: string;
  run_id: string;
  tool: string;
  arguments: unknown;
  recorded: {
    decision: 'allow' | 'deny';
    source?: DenySource;
    rule_id?: string;
    /** The policy asked a person (the call waited on an approval). */
    asked: boolean;
  };
}

/** What simulation reads of the call's run, frozen at its creation. */
export interface SimulatedRun {
  autonomy: 'supervised' | 'autonomous';
  tools: ReadonlyMap<string, FrozenTool>;
}

export interface CandidateVerdict {
  decision: SimulatedOutcome;
  rule_id: string | null;
  reason: string;
}

export interface ChangedCall {
  session_id: string;
  tool_call_id: string;
  tool: string;
  recorded: { decision: 'allow' | 'deny'; source?: DenySource; rule_id?: string; asked: boolean };
  candidate: CandidateVerdict;
  /** Only for a reader allowed to see argument values. */
  arguments?: unknown;
}

/** Sources of a deny reached before the policy stage (or none at all): they stand as recorded. */
const standingSources = new Set<DenySource>([
  'budget',
  'capability',
  'binding',
  'schema',
  'trust_tier',
  'unavailable',
]);

function recordedOutcome(recorded: RecordedCall['recorded']): SimulatedOutcome {
  return recorded.asked ? 'ask' : recorded.decision;
}

/** The candidate at the policy stage of one recorded call, with its run's frozen facts. */
export function candidateVerdict(
  candidate: PolicyBody,
  call: RecordedCall,
  run: SimulatedRun,
): SimulatedVerdict {
  const { source } = call.recorded;
  const frozen = run.tools.get(call.tool);
  if ((source && standingSources.has(source)) || !frozen) {
    const stage = source ?? 'capability';
    return {
      decision: 'deny',
      rule_id: null,
      reason: `denied at the ${stage} stage, as recorded`,
      stage,
    };
  }
  const ruling = policyVerdict(
    { id: '', version: 0, body: candidate },
    run.autonomy,
    { name: call.tool, frozen },
    call.arguments,
  );
  if (ruling.outcome === 'deny') throw new Error('a frozen tool passed the policy stage');
  if (ruling.verdict === 'require_approval') {
    const by = ruling.rule_id ? `rule "${ruling.rule_id}"` : 'the policy default';
    return {
      decision: 'ask',
      rule_id: ruling.rule_id,
      reason: `would ask a person: ${by}`,
      stage: 'policy',
    };
  }
  const { answer } = decisionFromPolicy({ ...ruling, verdict: ruling.verdict });
  return {
    decision: answer.decision,
    rule_id: ruling.rule_id,
    reason: answer.reason,
    stage: 'policy',
  };
}

/** The rule key a verdict is counted under: the rule's id, `default`, or the earlier stage. */
function ruleKey(verdict: { rule_id: string | null; stage: DenySource }): string {
  if (verdict.stage !== 'policy') return `stage:${verdict.stage}`;
  return verdict.rule_id ?? 'default';
}

export interface SimulationReport {
  evaluated: number;
  /** Calls read but not evaluated: their arguments are not the reader's to read. */
  withheld: number;
  by_outcome: Record<SimulatedOutcome, number>;
  by_rule: Record<string, number>;
  changed: ChangedCall[];
}

/** A candidate's verdict on one call, with the stage that gave it. */
export type SimulatedVerdict = CandidateVerdict & { stage: DenySource };

/**
 * Counts calls as their verdicts come; keeps the changed ones. A withheld call is counted as
 * withheld only: nothing else in the report depends on it.
 */
export class Simulation {
  private evaluated = 0;
  private withheld = 0;
  private readonly byOutcome: Record<SimulatedOutcome, number> = { allow: 0, deny: 0, ask: 0 };
  private readonly byRule = new Map<string, number>();
  private readonly changed: ChangedCall[] = [];

  constructor(private readonly showArguments: boolean) {}

  add(call: RecordedCall, verdict: SimulatedVerdict): void {
    this.evaluated += 1;
    this.byOutcome[verdict.decision] += 1;
    const key = ruleKey(verdict);
    this.byRule.set(key, (this.byRule.get(key) ?? 0) + 1);
    if (verdict.decision === recordedOutcome(call.recorded)) return;
    this.changed.push({
      session_id: call.session_id,
      tool_call_id: call.tool_call_id,
      tool: call.tool,
      recorded: call.recorded,
      candidate: { decision: verdict.decision, rule_id: verdict.rule_id, reason: verdict.reason },
      ...(this.showArguments && { arguments: call.arguments }),
    });
  }

  withhold(): void {
    this.withheld += 1;
  }

  /** The calls read: evaluated and withheld. */
  get count(): number {
    return this.evaluated + this.withheld;
  }

  report(): SimulationReport {
    return {
      evaluated: this.evaluated,
      withheld: this.withheld,
      by_outcome: { ...this.byOutcome },
      by_rule: Object.fromEntries([...this.byRule].sort(([a], [b]) => a.localeCompare(b))),
      changed: this.changed,
    };
  }
}
