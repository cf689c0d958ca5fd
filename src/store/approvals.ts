import type { ApprovalStatus, Authority } from '../domain/gate/approval.js';
import type { RunId, SessionId, ToolCallId } from '../domain/gate/ids.js';
import type { Queryable } from './pool.js';

export interface ApprovalRow {
  session_id: SessionId;
  tool_call_id: ToolCallId;
  run_id: RunId;
  workspace_id: string;
  tool: string;
  arguments: Record<string, unknown>;
  rule_id: string | null;
  policy_version: number;
  authority: Authority;
  owner_user_id: string | null;
  status: ApprovalStatus;
  decision: 'allow' | 'deny' | null;
  decided_by: string | null;
  reason: string | null;
  on_timeout: 'allow' | 'deny';
  requested_at: Date;
  expires_at: Date;
  decided_at: Date | null;
}

const columnNames = [
  'session_id',
  'tool_call_id',
  'run_id',
  'workspace_id',
  'tool',
  'arguments',
  'rule_id',
  'policy_version',
  'authority',
  'owner_user_id',
  'status',
  'decision',
  'decided_by',
  'reason',
  'on_timeout',
  'requested_at',
  'expires_at',
  'decided_at',
];

/** The columns of an approval row, qualified by a table alias when one is given. */
export const approvalColumns = (alias?: string) =>
  columnNames.map((name) => (alias ? `${alias}.${name}` : name)).join(', ');

const columns = approvalColumns();

/** A pending approval to create, with how long it waits for a person. */
export type NewApproval = Pick<
  ApprovalRow,
  | 'session_id'
  | 'tool_call_id'
  | 'run_id'
  | 'workspace_id'
  | 'tool'
  | 'arguments'
  | 'rule_id'
  | 'policy_version'
  | 'authority'
  | 'owner_user_id'
  | 'on_timeout'
> & { timeout_s: number };

/** Creates the pending approval once; a retry gets the existing row back. */
export async function insertApproval(
  db: Queryable,
  approval: NewApproval,
): Promise<{ row: ApprovalRow; created: boolean }> {
  const inserted = await db.query<ApprovalRow>(
    `insert into approvals (session_id, tool_call_id, run_id, workspace_id, tool, arguments, rule_id,
       policy_version, authority, owner_user_id, on_timeout, expires_at)
     values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, now() + make_interval(secs => $12))
     on conflict (session_id, tool_call_id) do nothing
     returning ${columns}`,
    [
      approval.session_id,
      approval.tool_call_id,
      approval.run_id,
      approval.workspace_id,
      approval.tool,
      JSON.stringify(approval.arguments),
      approval.rule_id,
      approval.policy_version,
      approval.authority,
      approval.owner_user_id,
      approval.on_timeout,
      approval.timeout_s,
    ],
  );
  if (inserted.rows[0]) return { row: inserted.rows[0], created: true };
  const existing = await findApproval(db, approval.session_id, approval.tool_call_id);
  if (!existing) throw new Error('approval vanished between insert and select');
  return { row: existing, created: false };
}

export async function findApproval(
  db: Queryable,
  sessionId: SessionId,
  toolCallId: ToolCallId,
): Promise<ApprovalRow | undefined> {
  const { rows } = await db.query<ApprovalRow>(
    `select ${columns} from approvals where session_id = $1 and tool_call_id = $2`,
    [sessionId, toolCallId],
  );
  return rows[0];
}

/**
 * Who settles an approval: a person before its expiry, the expiry after it, the gate denying, or
 * the run's revocation.
 */
export type ApprovalSettler =
  | { by: 'person'; decision: 'allow' | 'deny'; decidedBy: string; reason: string | null }
  | { by: 'expiry' }
  | { by: 'gate'; reason: string }
  | { by: 'revocation' };

/**
 * The compare-and-swap that settles an approval: only a pending row changes, so of any number
 * of concurrent deciders exactly one gets a row back. A person can decide only before the
 * expiry; expiry can settle only after it; the gate, denying while the approval waits (it failed
 * closed, or its workflow was terminated), at any time. Person and expiry compare with the clock
 * at the moment of the update (`clock_timestamp()`), not the transaction's start (`now()`): a
 * decision whose transaction began before the expiry but reached the row after it is too late.
 */
export async function settleApproval(
  db: Queryable,
  sessionId: SessionId,
  toolCallId: ToolCallId,
  settle: ApprovalSettler,
): Promise<ApprovalRow | undefined> {
  if (settle.by === 'revocation') {
    // The run was revoked: nobody decides its calls any more, and nothing it asked is allowed.
    const { rows } = await db.query<ApprovalRow>(
      `update approvals set status = 'denied', decision = 'deny', decided_at = clock_timestamp()
       where session_id = $1 and tool_call_id = $2 and status = 'pending'
       returning ${columns}`,
      [sessionId, toolCallId],
    );
    return rows[0];
  }
  const key = [sessionId, toolCallId];
  const { rows } =
    settle.by === 'person'
      ? await db.query<ApprovalRow>(
          `update approvals
           set status = case when $3 = 'allow' then 'approved' else 'denied' end, decision = $3,
             decided_by = $4, reason = $5, decided_at = clock_timestamp()
           where session_id = $1 and tool_call_id = $2 and status = 'pending'
             and expires_at > clock_timestamp()
           returning ${columns}`,
          [...key, settle.decision, settle.decidedBy, settle.reason],
        )
      : settle.by === 'expiry'
        ? await db.query<ApprovalRow>(
            `update approvals set status = 'expired', decision = on_timeout,
               decided_at = clock_timestamp()
             where session_id = $1 and tool_call_id = $2 and status = 'pending'
               and expires_at <= clock_timestamp()
             returning ${columns}`,
            key,
          )
        : await db.query<ApprovalRow>(
            `update approvals set status = 'failed_closed', decision = 'deny', reason = $3,
               decided_at = clock_timestamp()
             where session_id = $1 and tool_call_id = $2 and status = 'pending'
             returning ${columns}`,
            [...key, settle.reason],
          );
  return rows[0];
}

/** The tool calls of a session whose approvals are pending. */
export async function pendingApprovalsOfSession(
  db: Queryable,
  sessionId: SessionId,
): Promise<ToolCallId[]> {
  const { rows } = await db.query<{ tool_call_id: ToolCallId }>(
    `select tool_call_id from approvals where session_id = $1 and status = 'pending'
     order by requested_at, tool_call_id`,
    [sessionId],
  );
  return rows.map((row) => row.tool_call_id);
}

/** How many approvals wait for a person now, in all workspaces. */
export async function countPendingApprovals(db: Queryable): Promise<number> {
  const { rows } = await db.query<{ n: number }>(
    "select count(*)::int as n from approvals where status = 'pending'",
  );
  return rows[0]?.n ?? 0;
}

/** Who may see a session's asked calls: each approval's authority, by tool call. */
export async function approvalAuthoritiesOfSession(
  db: Queryable,
  sessionId: string,
): Promise<Map<string, Pick<ApprovalRow, 'authority' | 'owner_user_id' | 'workspace_id'>>> {
  const { rows } = await db.query<
    Pick<ApprovalRow, 'tool_call_id' | 'authority' | 'owner_user_id' | 'workspace_id'>
  >(
    `select tool_call_id, authority, owner_user_id, workspace_id from approvals
     where session_id = $1`,
    [sessionId],
  );
  return new Map(rows.map(({ tool_call_id, ...authority }) => [tool_call_id, authority]));
}
