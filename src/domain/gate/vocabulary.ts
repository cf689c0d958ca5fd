/**
 * The gate's vocabulary, shared by the workflow, its activities and the API.
 * Types, constants and pure helpers only: safe to import from workflow code.
 */
import type { RunId, SessionId, ToolCallId } from './ids.js';

export type Decision = 'allow' | 'deny';

/**
 * Who denied: a stage, the approval, or (`unavailable`) the gate itself, which could not reach
 * its state of record within its window and so failed closed.
 */
export const denySources = [
  'budget',
  'capability',
  'binding',
  'schema',
  'trust_tier',
  'policy',
  'approval',
  'unavailable',
] as const;
export type DenySource = (typeof denySources)[number];

/**
 * The stages before policy, in the design document's order: the first denial decides. Every
 * ordered list and keyed map of the stages is derived from this one and `stageOrder`.
 */
export const checkStages = ['budget', 'capability', 'schema', 'trust_tier'] as const;
export type CheckStage = (typeof checkStages)[number];

/** Every stage in the design document's order: the checks, then policy, then approval. */
export const stageOrder = [...checkStages, 'policy', 'approval'] as const;
export type StageName = (typeof stageOrder)[number];

/** The stages that run as activities: the checks and policy (approval is the workflow's pause). */
export const evaluatedStages = [...checkStages, 'policy'] as const;
export type EvaluatedStage = (typeof evaluatedStages)[number];

type CamelCase<S extends string> = S extends `${infer A}_${infer B}`
  ? `${A}${Capitalize<CamelCase<B>>}`
  : S;

/** A stage's function as the activities name it: `trust_tier` is `trustTier`. */
export type StageFunction = CamelCase<EvaluatedStage>;

export function stageFunctionOf<S extends EvaluatedStage>(stage: S): CamelCase<S> {
  return stage.replace(/_([a-z])/g, (_, letter: string) => letter.toUpperCase()) as CamelCase<S>;
}

/** A stage's denial: its source, the reason the runner reads, and how the ledger keeps it. */
export interface Denial {
  outcome: 'deny';
  source: DenySource;
  reason: string;
  render?: 'tool_error';
  /** The reason as the ledger may keep it, when `reason` quotes the arguments (their keys). */
  ledger_reason?: string;
  /** The called name is none the run froze: the runner's text, kept by the ledger as a digest. */
  tool_unfrozen?: true;
}

/** What a stage before policy answers: pass on to the next stage, or deny. */
export type StageOutcome = { outcome: 'pass' } | Denial;

/** What the policy stage answers: the effective verdict and what an approval needs, or a denial. */
export type PolicyOutcome = Denial | PolicyRuling;

/** A shadow version's verdict on a call: recorded beside the decision, never changing it. */
export interface ShadowVerdict {
  version: number;
  /** Its effective verdict (autonomy applied), as the real one is compared. */
  verdict: 'allow' | 'deny' | 'require_approval';
  rule_id: string | null;
  agrees: boolean;
}

/** How the policy stage reached its verdict, for the record (never an argument value). */
interface PolicyTrail {
  /** The matched rule's conditions in the policy's words (see domain/policy/explain.ts). */
  matched?: string;
  shadow?: ShadowVerdict;
}

export interface PolicyRuling extends PolicyTrail {
  outcome: 'verdict';
  verdict: 'allow' | 'deny' | 'require_approval';
  /** What the policy said before autonomy rewrote require_approval; the ledger records both. */
  original_verdict: 'allow' | 'deny' | 'require_approval';
  /** The rule that matched, or null when the policy's default decided. */
  rule_id: string | null;
  policy_id: string;
  policy_version: number;
  approval: { timeout_s: number; on_timeout: 'allow' | 'deny' };
  /** A standing approval of the run that covers this call: the approval stage asks nobody. */
  grant?: {
    id: string;
    granted_by: string;
    granted_by_name: string;
    /** How long it was given for, as its grantor chose it: `for 15 minutes`. */
    length: string;
  };
}

/** What the runner asked for: the call, as the workflow and its activities read it. */
export interface GateRequest {
  run_id: RunId;
  session_id: SessionId;
  tool_call_id: ToolCallId;
  tool: string;
  arguments: Record<string, unknown>;
  execute: boolean;
  /**
   * The digest of the tool as the runner's sandbox serves it now, null when it serves it no
   * more; reported by the gate MCP proxy. It can only deny (stage 2), never allow.
   */
  observed_digest?: string | null;
}

/** How the gate runs a call: the deployment's settings, the same for every call it starts. */
export interface GateSettings {
  /** How long a paused call waits before it first re-reads its approval unwoken (seconds). */
  approval_recheck_s: number;
  /** The longest wait between two unwoken re-reads: each one waits twice the one before, up to this. */
  approval_recheck_max_s: number;
  /**
   * How long a stage keeps trying to reach its data before the call fails closed as
   * `unavailable` (seconds).
   */
  unavailable_window_s: number;
}

/** The gate workflow's input: the call, and the settings it runs under. */
export interface GateInput {
  call: GateRequest;
  settings: GateSettings;
}

/**
 * The input of a workflow started before the call and its settings were split: one flat object
 * that also said how the cheap stages ran (`remote`: one regular activity each). Still read, so
 * that a call in flight across an upgrade runs on, and its history replays.
 */
export type FlatGateInput = GateRequest &
  GateSettings & {
    stage_activities: 'local' | 'remote';
  };

export interface DecidedAnswer {
  status: 'decided';
  decision: Decision;
  source?: DenySource;
  reason: string;
  rule_id?: string;
  render?: 'tool_error';
  /** For an allowed brokered call with `execute`: the MCP CallToolResult the control plane got. */
  result?: Record<string, unknown>;
}

export interface PendingAnswer {
  status: 'pending_approval';
  approval: { url: string; expires_at: string };
}

export type GateAnswer = DecidedAnswer | PendingAnswer;

/** A decision with what the ledger records of how it was reached. */
export interface GateDecision extends PolicyTrail {
  answer: DecidedAnswer;
  /** The stage that decided: the deny's source, or policy / approval for an allow. */
  stage: DenySource;
  /** The policy's verdict, and what autonomy rewrote it to, when policy was reached. */
  verdict?: string;
  original_verdict?: string;
  /** The frozen policy version that gave the verdict, when policy was reached. */
  policy_version?: number;
  decided_by?: string;
  /** What tool.decision records as the reason, when the answer's reason quotes the arguments. */
  ledger_reason?: string;
  /** The called name is none the run froze: the ledger keeps its digest and length only. */
  tool_unfrozen?: true;
}

/** A tool call's state as GET .../tool-calls/{id} shows it. */
export type ToolCallState = GateAnswer | { status: 'evaluating' };

/** The activity header that carries the request id the API started the workflow with. */
export const requestIdHeader = 'request-id';
