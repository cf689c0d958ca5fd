/**
 * One decision explained from its record: each stage in the design document's order with its
 * verdict and what it looked at (digests, the frozen facts, the rule and the conditions that
 * matched). Built from the run's frozen snapshot and the call's ledger events only: never an
 * argument value.
 */
import type { FrozenTool } from '../tools/tools.js';
import { stageOrder, type DenySource, type StageName } from './vocabulary.js';

export interface StageExplanation {
  stage: StageName;
  /** `pass`, `deny`, the policy's verdict, or `not_reached` after the stage that decided. */
  verdict: string;
  looked_at: Record<string, unknown>;
}

export interface DecisionRecord {
  run: {
    max_tokens: number;
    toolset_digest: string;
    trust_tier: string;
    autonomy: string;
    policy_id: string;
    policy_version: number;
  };
  tool: FrozenTool | undefined;
  /** The ledger's facts of the call, by event type. */
  requested?: Record<string, unknown>;
  decision?: Record<string, unknown>;
  approvalRequested?: Record<string, unknown>;
  approvalDecided?: Record<string, unknown>;
}

/** The stage that decided, as the record names it (a binding deny is the capability stage's). */
function decidingStage(record: DecisionRecord): StageName | undefined {
  if (record.approvalRequested) return 'approval';
  const stage = record.decision?.stage as DenySource | undefined;
  if (stage === 'binding') return 'capability';
  return stageOrder.find((s) => s === stage);
}

function shadowOf(facts: Record<string, unknown> | undefined) {
  if (facts?.shadow_version === undefined) return undefined;
  return {
    version: facts.shadow_version,
    verdict: facts.shadow_verdict,
    rule_id: facts.shadow_rule_id,
    agrees: facts.shadow_agrees,
  };
}

function lookedAt(stage: StageName, record: DecisionRecord): Record<string, unknown> {
  const { run, tool } = record;
  const policyFacts = record.approvalRequested ?? record.decision;
  switch (stage) {
    case 'budget':
      return { max_tokens: run.max_tokens };
    case 'capability':
      return {
        toolset_digest: run.toolset_digest,
        tool_digest: tool?.digest ?? null,
        frozen: tool !== undefined,
        binding: tool?.binding ?? null,
      };
    case 'schema':
      return {
        tool_digest: tool?.digest ?? null,
        callable: tool?.callable ?? false,
        arguments_digest: record.requested?.arguments_digest ?? null,
      };
    case 'trust_tier':
      return {
        trust_tier: run.trust_tier,
        effect: tool?.effect ?? null,
        class: tool?.class ?? null,
      };
    case 'policy':
      return {
        policy_id: run.policy_id,
        policy_version: policyFacts?.policy_version ?? run.policy_version,
        autonomy: run.autonomy,
        rule_id: policyFacts?.rule_id ?? null,
        matched: policyFacts?.matched ?? null,
        original_verdict: record.decision?.original_verdict ?? null,
        ...(shadowOf(policyFacts) && { shadow: shadowOf(policyFacts) }),
      };
    case 'approval':
      return {
        outcome: record.approvalDecided?.outcome ?? 'pending',
        decided_by: record.approvalDecided?.decided_by ?? null,
        expires_at: record.approvalRequested?.expires_at ?? null,
      };
  }
}

const text = (value: unknown, otherwise: string) => (typeof value === 'string' ? value : otherwise);

function verdictOf(stage: StageName, decider: StageName | undefined, record: DecisionRecord) {
  if (decider === undefined) return 'not_reached';
  const at = stageOrder.indexOf(stage);
  const deciding = stageOrder.indexOf(decider);
  if (at > deciding) return 'not_reached';
  if (stage === 'policy' && decider === 'approval') return 'require_approval';
  if (at < deciding) return 'pass';
  const { decision, approvalDecided } = record;
  if (stage === 'approval') return text(approvalDecided?.decision, 'pending');
  if (stage === 'policy') return text(decision?.original_verdict, text(decision?.decision, 'deny'));
  return text(decision?.decision, 'deny');
}

/**
 * What is read off the arguments themselves: their digest (a guess confirmed offline) and which
 * of a rule's command patterns they matched. Only for a viewer who may read the arguments.
 */
const argumentFacts: Partial<Record<StageName, string[]>> = {
  schema: ['arguments_digest'],
  policy: ['matched'],
};

function withoutArgumentFacts(stage: StageName, facts: Record<string, unknown>) {
  const hidden = argumentFacts[stage] ?? [];
  return Object.fromEntries(Object.entries(facts).filter(([key]) => !hidden.includes(key)));
}

/**
 * Each stage's verdict and what it looked at, from the record; what is read off the arguments
 * only when `argumentsShown`.
 */
export function explainDecision(
  record: DecisionRecord,
  argumentsShown: boolean,
): StageExplanation[] {
  const decider = decidingStage(record);
  return stageOrder
    .filter((stage) => stage !== 'approval' || record.approvalRequested)
    .map((stage) => {
      const facts = lookedAt(stage, record);
      return {
        stage,
        verdict: verdictOf(stage, decider, record),
        looked_at: argumentsShown ? facts : withoutArgumentFacts(stage, facts),
      };
    });
}
