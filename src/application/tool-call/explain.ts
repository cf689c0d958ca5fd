import { readsCallArguments } from '../../domain/gate/approval.js';
import { explainDecision, type StageExplanation } from '../../domain/gate/explanation.js';
import type { SessionId, ToolCallId } from '../../domain/gate/ids.js';
import type { DenySource } from '../../domain/gate/vocabulary.js';
import { findApproval } from '../../store/approvals.js';
import { readCallEvents } from '../../store/ledger.js';
import type { Member } from '../../store/members.js';
import type { Pool } from '../../store/pool.js';
import { findRunBySessionId } from '../../store/runs.js';
import { findToolCall, type ToolCallRow } from '../../store/tool-calls.js';
import { NotFoundError } from '../../domain/errors.js';
import { frozenTool } from '../../domain/tools/tools.js';

interface Explanation {
  session_id: string;
  tool_call_id: string;
  tool: string;
  status: ToolCallRow['status'];
  decision: 'allow' | 'deny' | null;
  source: DenySource | null;
  rule_id: string | null;
  /**
   * The digest of the request the runner sent (tool, arguments, execute): only for a viewer who
   * may read the arguments, as the approval API shows them; `arguments_hidden` otherwise.
   */
  request_digest?: string;
  arguments_hidden?: true;
  stages: StageExplanation[];
}

/**
 * One call's decision, stage by stage, from the record: the run's frozen snapshot and the call's
 * ledger events. Unknown to an admin of another workspace; nothing read off the arguments (their
 * digests, the command patterns they matched) for an admin who may not read them. The operator
 * (no member) reads every call.
 */
export async function explainToolCall(
  pool: Pool,
  sessionId: SessionId,
  toolCallId: ToolCallId,
  viewer: { member?: Member },
): Promise<Explanation> {
  const { member } = viewer;
  const [run, call, approval] = await Promise.all([
    findRunBySessionId(pool, sessionId),
    findToolCall(pool, sessionId, toolCallId),
    member ? findApproval(pool, sessionId, toolCallId) : undefined,
  ]);
  if (!run || !call || (member !== undefined && run.workspace_id !== member.workspace_id)) {
    throw new NotFoundError(`tool call ${toolCallId} of session ${sessionId}`);
  }
  const argumentsShown = !member || readsCallArguments(approval, member, run.invoked_by);
  const events = await readCallEvents(pool, sessionId, toolCallId);
  const facts = (type: string) => events.find((event) => event.type === type)?.data;
  const requested = facts('tool.requested');
  const decision = facts('tool.decision');
  const approvalRequested = facts('approval.requested');
  const approvalDecided = facts('approval.decided');
  const stages = explainDecision(
    {
      run,
      tool: frozenTool(run.toolset, call.tool),
      ...(requested && { requested }),
      ...(decision && { decision }),
      ...(approvalRequested && { approvalRequested }),
      ...(approvalDecided && { approvalDecided }),
    },
    argumentsShown,
  );
  const answer = call.answer?.status === 'decided' ? call.answer : undefined;
  return {
    session_id: call.session_id,
    tool_call_id: call.tool_call_id,
    tool: call.tool,
    status: call.status,
    decision: answer?.decision ?? null,
    source: answer?.source ?? null,
    rule_id: answer?.rule_id ?? null,
    ...(argumentsShown
      ? { request_digest: call.request_digest }
      : { arguments_hidden: true as const }),
    stages,
  };
}
