import type { Authority } from '../domain/gate/approval.js';
import type { SessionId, ToolCallId } from '../domain/gate/ids.js';
import type { Queryable } from './pool.js';

/** A decided call of a run, as an approver reads it beside the one they decide. */
export interface RunDecision {
  session_id: SessionId;
  tool_call_id: ToolCallId;
  tool: string;
  decision: 'allow' | 'deny';
  source: string | null;
  rule_id: string | null;
  /** Allowed by a standing approval of the run, with no person asked. */
  by_grant: boolean;
  decided_at: Date | null;
  /** Set when a person was asked: the arguments (to be shown only to those who may) and who. */
  approval: {
    workspace_id: string;
    authority: Authority;
    owner_user_id: string | null;
    arguments: Record<string, unknown>;
    status: string;
    decided_by_name: string | null;
  } | null;
}

/** The run's latest decided calls, newest first, leaving out the call being looked at. */
export async function latestRunDecisions(
  db: Queryable,
  runId: string,
  except: { session_id: string; tool_call_id: string },
  limit: number,
): Promise<RunDecision[]> {
  const { rows } = await db.query<
    Omit<RunDecision, 'approval'> & {
      workspace_id: string | null;
      authority: Authority;
      owner_user_id: string | null;
      arguments: Record<string, unknown>;
      approval_status: string;
      decided_by_name: string | null;
    }
  >(
    `select t.session_id, t.tool_call_id, t.tool, t.decision, t.source,
       t.answer->>'rule_id' as rule_id, t.decided_at,
       (a.session_id is null and t.answer->>'reason' like 'approved by grant %') as by_grant, a.workspace_id, a.authority,
       a.owner_user_id, a.arguments, a.status as approval_status, m.name as decided_by_name
     from tool_calls t
     left join approvals a on a.session_id = t.session_id and a.tool_call_id = t.tool_call_id
     left join members m on m.id = a.decided_by
     where t.run_id = $1 and t.status = 'decided' and t.decision is not null
       and not (t.session_id = $2 and t.tool_call_id = $3)
     order by t.decided_at desc nulls last, t.tool_call_id
     limit $4`,
    [runId, except.session_id, except.tool_call_id, limit],
  );
  return rows.map((row) => ({
    session_id: row.session_id,
    tool_call_id: row.tool_call_id,
    tool: row.tool,
    decision: row.decision,
    source: row.source,
    rule_id: row.rule_id,
    by_grant: row.by_grant,
    decided_at: row.decided_at,
    approval:
      row.workspace_id === null
        ? null
        : {
            workspace_id: row.workspace_id,
            authority: row.authority,
            owner_user_id: row.owner_user_id,
            arguments: row.arguments,
            status: row.approval_status,
            decided_by_name: row.decided_by_name,
          },
  }));
}
