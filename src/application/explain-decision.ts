import { explainDecision, type StageExplanation } from '../domain/gate/explanation.js';
import type { SessionId, ToolCallId } from '../domain/gate/ids.js';
import type { DenySource } from '../domain/gate/vocabulary.js';
import { readCallEvents } from '../store/ledger.js';
import type { Pool } from '../store/pool.js';
import { findRunBySessionId } from '../store/runs.js';
import { findToolCall, type ToolCallRow } from '../store/tool-calls.js';
import { NotFoundError } from './errors.js';

export interface Explanation {
  session_id: string;
  tool_call_id: string;
  tool: string;
  status: ToolCallRow['status'];
  decision: 'allow' | 'deny' | null;
  source: DenySource | null;
  rule_id: string | null;
  /** The digest of the request the runner sent (tool, arguments, execute). */
  request_digest: string;
  stages: StageExplanation[];
}

/**
 * One call's decision, stage by stage, from the record: the run's frozen snapshot and the call's
 * ledger events. Unknown to an admin of another workspace.
 */
export async function explainToolCall(
  pool: Pool,
  sessionId: SessionId,
  toolCallId: ToolCallId,
  viewer: { workspace?: string },
): Promise<Explanation> {
  const [run, call] = await Promise.all([
    findRunBySessionId(pool, sessionId),
    findToolCall(pool, sessionId, toolCallId),
  ]);
  if (!run || !call || (viewer.workspace !== undefined && run.workspace_id !== viewer.workspace)) {
    throw new NotFoundError(`tool call ${toolCallId} of session ${sessionId}`);
  }
  const events = await readCallEvents(pool, sessionId, toolCallId);
  const facts = (type: string) => events.find((event) => event.type === type)?.data;
  const requested = facts('tool.requested');
  const decision = facts('tool.decision');
  const approvalRequested = facts('approval.requested');
  const approvalDecided = facts('approval.decided');
  const stages = explainDecision({
    run,
    tool: run.toolset.find((tool) => tool.name === call.tool),
    ...(requested && { requested }),
    ...(decision && { decision }),
    ...(approvalRequested && { approvalRequested }),
    ...(approvalDecided && { approvalDecided }),
  });
  const answer = call.answer?.status === 'decided' ? call.answer : undefined;
  return {
    session_id: call.session_id,
    tool_call_id: call.tool_call_id,
    tool: call.tool,
    status: call.status,
    decision: answer?.decision ?? null,
    source: answer?.source ?? null,
    rule_id: answer?.rule_id ?? null,
    request_digest: call.request_digest,
    stages,
  };
}
