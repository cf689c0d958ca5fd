import type { ApprovalRow } from './approvals.js';
import { approvalColumns } from './approvals.js';
import type { Queryable } from './pool.js';

/**
 * `mine`: pending ones this member may decide, or decided ones they decided. `all`: every one
 * they may see: an approver's or admin's whole workspace, else the calls they own or invoked.
 */
export type ApprovalListScope = 'mine' | 'all';

interface ApprovalListQuery {
  status: 'pending' | 'decided';
  scope: ApprovalListScope;
  limit: number;
  offset: number;
}

export interface ListedApproval extends ApprovalRow {
  decided_by_name: string | null;
  invoked_by: string;
}

interface ApprovalListPage {
  rows: ListedApproval[];
  /** How many the whole list holds, across its pages. */
  total: number;
}

interface Viewer {
  id: string;
  workspace_id: string;
  role: string;
  status: string;
}

/** The viewer as a row, so that each filter reads what it needs of them and nothing is untyped. */
const viewerSql = `(select $2::uuid as id, $3::text as role) v`;
const mayDecideSql = `((a.authority = 'owner' and a.owner_user_id = v.id)
  or (a.authority = 'workspace_approvers' and v.role in ('approver', 'admin')))`;
const maySeeSql = `(v.role in ('approver', 'admin') or a.owner_user_id = v.id or r.invoked_by = v.id)`;

function filterOf(query: Pick<ApprovalListQuery, 'status' | 'scope'>): string {
  if (query.status === 'pending')
    return `a.status = 'pending' and ${query.scope === 'mine' ? mayDecideSql : maySeeSql}`;
  return `a.status <> 'pending' and ${query.scope === 'mine' ? 'a.decided_by = v.id' : maySeeSql}`;
}

/**
 * One page of a member's approvals, grouped by run: pending runs by their oldest call and each
 * run's calls oldest first; decided runs by their latest decision and each run's newest first.
 */
export async function listApprovals(
  db: Queryable,
  member: Viewer,
  query: ApprovalListQuery,
): Promise<ApprovalListPage> {
  if (member.status !== 'active') return { rows: [], total: 0 };
  const order =
    query.status === 'pending'
      ? 'min(a.requested_at) over (partition by a.run_id), a.run_id, a.requested_at'
      : 'max(a.decided_at) over (partition by a.run_id) desc, a.run_id, a.decided_at desc';
  const { rows } = await db.query<ListedApproval & { total: number }>(
    `select ${approvalColumns('a')}, d.name as decided_by_name, r.invoked_by,
       (count(*) over ())::int as total
     from approvals a
     join runs r on r.id = a.run_id
     left join members d on d.id = a.decided_by
     cross join ${viewerSql}
     where a.workspace_id = $1 and ${filterOf(query)}
     order by ${order}, a.session_id, a.tool_call_id
     limit $4 offset $5`,
    [member.workspace_id, member.id, member.role, query.limit, query.offset],
  );
  const total = rows[0]?.total ?? 0;
  return { rows: rows.map(({ total: _total, ...row }) => row), total };
}

/** The keys of every pending approval a member may see: the live list's version is read off them. */
export async function visiblePendingKeys(
  db: Queryable,
  member: Viewer,
): Promise<Pick<ApprovalRow, 'session_id' | 'tool_call_id'>[]> {
  if (member.status !== 'active') return [];
  const { rows } = await db.query<Pick<ApprovalRow, 'session_id' | 'tool_call_id'>>(
    `select a.session_id, a.tool_call_id from approvals a join runs r on r.id = a.run_id
     cross join ${viewerSql}
     where a.workspace_id = $1 and ${filterOf({ status: 'pending', scope: 'all' })}
     order by a.session_id, a.tool_call_id`,
    [member.workspace_id, member.id, member.role],
  );
  return rows;
}
