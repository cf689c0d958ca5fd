/**
 * How the workflow turns what the stages answered into the call's decision. Pure and free of
 * imports beyond types: safe for workflow code.
 */
import type {
  DecidedAnswer,
  Denial,
  DenySource,
  GateDecision,
  PolicyOutcome,
  PolicyRuling,
} from './vocabulary.js';

/** The decision of a stage that denied: its source, reason, rendering and ledger reason. */
export function decisionFromDenial(denial: Omit<Denial, 'outcome'>): GateDecision {
  const answer: DecidedAnswer = {
    status: 'decided',
    decision: 'deny',
    source: denial.source,
    reason: denial.reason,
  };
  if (denial.render) answer.render = denial.render;
  return {
    answer,
    stage: denial.source,
    ...(denial.ledger_reason !== undefined && { ledger_reason: denial.ledger_reason }),
    ...(denial.tool_unfrozen && { tool_unfrozen: true }),
  };
}

/** A stage that cannot answer denies with its own source: fail closed, never open. */
export function failedClosed(stage: DenySource, cause: string): GateDecision {
  // The cause may quote what the runner sent (a driver's error names the value): runner only.
  return decisionFromDenial({
    source: stage,
    reason: `the ${stage} stage could not decide (${cause}); failing closed`,
    ledger_reason: `the ${stage} stage could not decide; failing closed`,
  });
}

/**
 * The gate could not reach its state of record within its window (PostgreSQL away or too slow,
 * every attempt timing out): it fails closed, and says that the gate, not a stage's rule,
 * denied. `stage` is where it stopped, when known, for the ledger.
 */
export function failedUnavailable(stage: DenySource | undefined, cause: string): GateDecision {
  const where = stage === undefined ? '' : ` at the ${stage} stage`;
  return {
    ...decisionFromDenial({
      source: 'unavailable',
      reason: `the gate was unavailable: it could not reach its state of record in time${where} (${cause}); failing closed`,
      ledger_reason: `the gate was unavailable: it could not reach its state of record in time${where}; failing closed`,
    }),
    stage: stage ?? 'unavailable',
  };
}

/**
 * The failure type of an activity that could not reach the state of record (PostgreSQL away or
 * too slow); its details name the stage, if a stage failed. Tried again within the window.
 */
export const unavailableType = 'GateUnavailable';

/** The decision of a policy verdict of allow or deny, naming the rule and any autonomy rewrite. */
export function decisionFromPolicy(
  ruling: PolicyRuling & { verdict: 'allow' | 'deny' },
): GateDecision {
  const trail = {
    verdict: ruling.verdict,
    original_verdict: ruling.original_verdict,
    policy_version: ruling.policy_version,
    ...(ruling.matched !== undefined && { matched: ruling.matched }),
    ...(ruling.shadow && { shadow: ruling.shadow }),
  };
  const ruleId = ruling.rule_id ? { rule_id: ruling.rule_id } : {};
  const by = ruling.rule_id ? `rule "${ruling.rule_id}"` : 'the policy default';
  const rewritten =
    ruling.verdict !== ruling.original_verdict
      ? ' (the autonomous fallback for require_approval)'
      : '';
  if (ruling.verdict === 'allow') {
    const reason = `allowed by ${by}${rewritten}`;
    return {
      answer: { status: 'decided', decision: 'allow', reason, ...ruleId },
      stage: 'policy',
      ...trail,
    };
  }
  const reason = `denied by ${by}${rewritten}`;
  return {
    answer: { status: 'decided', decision: 'deny', source: 'policy', reason, ...ruleId },
    stage: 'policy',
    ...trail,
  };
}

/**
 * The approval stage's allow of a call a standing approval covers: named after the grant and its
 * grantor, as a person's approval names them.
 */
export function decisionFromGrant(
  ruling: PolicyRuling & { grant: NonNullable<PolicyRuling['grant']> },
): GateDecision {
  const { grant } = ruling;
  const reason = `approved by grant ${grant.id} (${grant.granted_by_name} allowed the same ${grant.length})`;
  return {
    answer: {
      status: 'decided',
      decision: 'allow',
      reason,
      ...(ruling.rule_id ? { rule_id: ruling.rule_id } : {}),
    },
    stage: 'approval',
    ledger_reason: `approved by grant ${grant.id}`,
    verdict: 'require_approval',
    original_verdict: ruling.original_verdict,
    decided_by: grant.granted_by,
  };
}

/** What the stages come to: a decision, or a ruling that asks a person first. */
export type Evaluation = GateDecision | { approval: PolicyRuling };

/** What the stages come to once a decision is recorded: its answer, or the ruling for a person. */
export type Decided = { recorded: DecidedAnswer } | { approval: PolicyRuling };

/**
 * The failure type of a decision reached but not recorded; its details are the decision and
 * whether writing it may succeed when tried again.
 */
export const recordFailedType = 'DecisionNotRecorded';

/** The evaluation of what the policy stage answered (or the earlier stage that denied). */
export function evaluationOf(policy: PolicyOutcome): Evaluation {
  if (policy.outcome === 'deny') return decisionFromDenial(policy);
  if (policy.verdict === 'require_approval')
    return policy.grant
      ? decisionFromGrant({ ...policy, grant: policy.grant })
      : { approval: policy };
  return decisionFromPolicy({ ...policy, verdict: policy.verdict });
}

/** An allowed brokered call the control plane could not carry out: a tool error, never a retry. */
export function brokerFailed(answer: DecidedAnswer, cause: string): DecidedAnswer {
  return {
    ...answer,
    result: {
      isError: true,
      content: [{ type: 'text', text: `the call could not be carried out (${cause})` }],
    },
  };
}

/** How a gate workflow closed without its decision recorded, as Temporal tells it. */
export type GateEnding = 'terminated' | 'timed_out' | 'canceled' | 'ended';

const endingReasons: Record<GateEnding, string> = {
  terminated: 'the gate workflow was terminated',
  timed_out: 'the gate workflow timed out',
  canceled: 'the gate workflow was canceled',
  ended: 'the gate ended without recording a decision',
};

/**
 * The deny of a call whose gate workflow closed before recording a decision: the approval
 * stage's when the call waited on a person (the approval can no longer reach it); else the
 * gate's unavailability (no stage reached a verdict: the gate itself could not go on).
 */
export function endedGateDecision(ending: GateEnding, paused: boolean): GateDecision {
  if (paused) return decisionFromDenial({ source: 'approval', reason: endingReasons[ending] });
  return decisionFromDenial({
    source: 'unavailable',
    reason: `the gate was unavailable: ${endingReasons[ending]}; failing closed`,
  });
}

/** What the model reads of a call its client withdrew (`tasks/cancel`) before it was decided. */
export const withdrawnReason = 'the client cancelled the call before its approval was decided';

/** The deny of a call withdrawn by its client while it waited on a person: it never runs. */
export function withdrawnDecision(): GateDecision {
  return decisionFromDenial({ source: 'approval', reason: withdrawnReason });
}
