import {
  settleAsPerson,
  type ApprovalDecision,
  type DecisionRequest,
} from '../store/approval-decision.js';
import { settleExpiredApproval } from '../store/approval-settlement.js';
import type { Pool } from '../store/pool.js';
import type { GateWorkflowClient } from '../temporal/gate-workflow-client.js';
import { GateError } from '../domain/errors.js';

/** The decision and its ledger entries commit together or not at all: nothing was recorded. */
export class DecisionNotRecordedError extends GateError {
  override name = 'DecisionNotRecordedError';
  readonly code = 'decision_not_recorded';
  constructor(cause: unknown) {
    super('the decision could not be recorded and was rolled back; the approval is still pending', {
      cause,
    });
  }
}

/** Runs a settlement; any failure means nothing was recorded (the transaction rolled back). */
async function recorded<T>(settle: () => Promise<T>): Promise<T> {
  try {
    return await settle();
  } catch (err) {
    throw new DecisionNotRecordedError(err);
  }
}

/**
 * A member decides one approval. Exactly one of any number of concurrent deciders wins; the
 * others learn the final state. An approval found past its expiry is settled as expired, the
 * same way the workflow would. The winner wakes the paused workflow.
 */
export async function decideApproval(
  deps: { pool: Pool; gate: GateWorkflowClient },
  request: DecisionRequest,
): Promise<ApprovalDecision> {
  const { sessionId, toolCallId } = request;
  const settled = await recorded(() => settleAsPerson(deps.pool, request));
  if (settled.outcome === 'decided') deps.gate.wake(sessionId, toolCallId);
  if (settled.outcome !== 'already_decided' || settled.approval.status !== 'pending')
    return settled;
  // Still pending, yet too late for a person: the expiry wins, settled as the workflow would.
  const expired = await recorded(() => settleExpiredApproval(deps.pool, sessionId, toolCallId));
  if (expired.outcome !== 'decided') return expired;
  deps.gate.wake(sessionId, toolCallId);
  return { outcome: 'already_decided', approval: expired.approval };
}
