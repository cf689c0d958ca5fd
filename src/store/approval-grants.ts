import type pg from 'pg';
import type { GrantScope } from '../domain/approvals/grant-scopes.js';
import type { ActiveGrant, AskedBy } from '../domain/approvals/grants.js';
import type { SessionId, ToolCallId } from '../domain/gate/ids.js';
import { payload, redact } from '../domain/ledger/redaction.js';
import { appendEvent } from './ledger.js';
import type { Queryable } from './pool.js';

export interface GrantRow {
  id: string;
  run_id: string;
  workspace_id: string;
  tool: string;
  /** As stored: a scope of an older shape covers nothing. */
  scope: unknown;
  rule_id: string | null;
  policy_version: number;
  granted_by: string;
  granted_by_name: string;
  session_id: SessionId;
  tool_call_id: ToolCallId;
  created_at: Date;
  expires_at: Date | null;
  revoked_at: Date | null;
  revoked_by_name: string | null;
  /** Who may decide the approval it was given with: a personal connection's owner, or approvers. */
  authority: 'owner' | 'workspace_approvers';
  owner_user_id: string | null;
  /** The member who invoked the run: with the deciders, who reads the scope's values. */
  invoked_by: string;
}

const grantSelect = `select g.id, g.run_id, g.workspace_id, g.tool, g.scope, g.rule_id,
    g.policy_version, g.granted_by, m.name as granted_by_name, g.session_id, g.tool_call_id,
    g.created_at, g.expires_at, g.revoked_at, r.name as revoked_by_name, a.authority,
    a.owner_user_id, run.invoked_by
  from approval_grants g
  join members m on m.id = g.granted_by
  join approvals a on a.session_id = g.session_id and a.tool_call_id = g.tool_call_id
  join runs run on run.id = g.run_id
  left join members r on r.id = g.revoked_by`;

/**
 * Records a standing approval and its grant.created event, in the caller's transaction (the one
 * that settles the approval it is given with: both commit, or neither).
 */
export async function createGrant(
  tx: pg.PoolClient,
  grant: {
    run_id: string;
    workspace_id: string;
    scope: GrantScope;
    asked: AskedBy;
    granted_by: string;
    session_id: SessionId;
    tool_call_id: ToolCallId;
    /** Null: for the rest of the run. */
    for_s: number | null;
  },
): Promise<{ id: string; expires_at: Date | null }> {
  const { rows } = await tx.query<{ id: string; expires_at: Date | null }>(
    `insert into approval_grants (run_id, workspace_id, tool, scope, granted_by, session_id,
       tool_call_id, expires_at, rule_id, policy_version)
     values ($1, $2, $3, $4, $5, $6, $7,
       case when $8::int is null then null else now() + make_interval(secs => $8::int) end,
       $9, $10)
     returning id, expires_at`,
    [
      grant.run_id,
      grant.workspace_id,
      grant.scope.tool,
      JSON.stringify(grant.scope),
      grant.granted_by,
      grant.session_id,
      grant.tool_call_id,
      grant.for_s,
      grant.asked.rule_id,
      grant.asked.policy_version,
    ],
  );
  const created = rows[0];
  if (!created) throw new Error('the grant was not recorded');
  await appendEvent(
    tx,
    grant.session_id,
    redact('grant.created', {
      grant_id: created.id,
      run_id: grant.run_id,
      tool_call_id: grant.tool_call_id,
      tool: grant.scope.tool,
      scope: payload(grant.scope),
      granted_by: grant.granted_by,
      expires_at: created.expires_at?.toISOString() ?? null,
    }),
  );
  return created;
}

/** A grant of a run, locked for its revocation. */
export async function lockGrant(
  tx: pg.PoolClient,
  runId: string,
  grantId: string,
): Promise<GrantRow | undefined> {
  const { rows } = await tx.query<GrantRow>(
    `${grantSelect} where g.run_id = $1 and g.id = $2 for update of g`,
    [runId, grantId],
  );
  return rows[0];
}

/** Ends a grant and appends grant.revoked, in the caller's transaction; false if already ended. */
export async function revokeGrant(
  tx: pg.PoolClient,
  grant: Pick<GrantRow, 'id' | 'session_id'>,
  revokedBy: string,
): Promise<boolean> {
  const { rowCount } = await tx.query(
    `update approval_grants set revoked_at = now(), revoked_by = $2
     where id = $1 and revoked_at is null`,
    [grant.id, revokedBy],
  );
  if (rowCount !== 1) return false;
  await appendEvent(
    tx,
    grant.session_id,
    redact('grant.revoked', { grant_id: grant.id, revoked_by: revokedBy }),
  );
  return true;
}

/** Every grant of a run, newest first, for its page. */
export async function grantsOfRun(db: Queryable, runId: string): Promise<GrantRow[]> {
  const { rows } = await db.query<GrantRow>(
    `${grantSelect} where g.run_id = $1 order by g.created_at desc`,
    [runId],
  );
  return rows;
}

/** The grants of a run in force now, with their grantors' memberships as they are now. */
export async function activeGrantsOfRun(db: Queryable, runId: string): Promise<ActiveGrant[]> {
  const { rows } = await db.query<
    Omit<ActiveGrant, 'asked' | 'grantor'> & AskedBy & { role: string; status: string; ws: string }
  >(
    `select g.id, g.scope, g.rule_id, g.policy_version, g.expires_at,
       extract(epoch from g.expires_at - g.created_at)::int as for_s,
       g.granted_by, m.name as granted_by_name, m.role, m.status, m.workspace_id as ws
     from approval_grants g join members m on m.id = g.granted_by
     where g.run_id = $1 and g.revoked_at is null
       and (g.expires_at is null or g.expires_at > now())
     order by g.created_at`,
    [runId],
  );
  return rows.map((row) => ({
    id: row.id,
    scope: row.scope,
    asked: { rule_id: row.rule_id, policy_version: row.policy_version },
    for_s: row.for_s,
    expires_at: row.expires_at,
    granted_by: row.granted_by,
    granted_by_name: row.granted_by_name,
    grantor: { id: row.granted_by, workspace_id: row.ws, role: row.role, status: row.status },
  }));
}
