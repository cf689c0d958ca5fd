import type { DecidedAnswer, GateDecision } from './vocabulary.js';
import { foreign, policyTrailFacts, redact, type Redacted } from '../ledger/redaction.js';

/** The tool.decision event of a recorded answer, with how the decision was reached. */
export function toolDecisionEvent(
  call: { tool_call_id: string; tool: string },
  decision: GateDecision,
  recorded: DecidedAnswer,
): Redacted {
  return redact('tool.decision', {
    tool_call_id: call.tool_call_id,
    tool: decision.tool_unfrozen ? foreign(call.tool) : call.tool,
    decision: recorded.decision,
    stage: decision.stage,
    source: recorded.source ?? null,
    // Never the arguments, not even a key of theirs: a schema denial's paths stay with the runner.
    reason: decision.ledger_reason ?? recorded.reason,
    rule_id: recorded.rule_id ?? null,
    verdict: decision.verdict ?? null,
    original_verdict: decision.original_verdict ?? null,
    decided_by: decision.decided_by ?? null,
    ...policyTrailFacts(decision),
  });
}
