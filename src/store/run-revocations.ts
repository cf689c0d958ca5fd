import type pg from 'pg';
import type { RunId, SessionId, ToolCallId } from '../domain/gate/ids.js';
import { redact } from '../domain/ledger/redaction.js';
import { settleAndRecord, type Settlement } from './approval-settlement.js';
import { pendingApprovalsOfSession } from './approvals.js';
import { appendEvent } from './ledger.js';
import { withTransaction, type Pool, type Queryable } from './pool.js';
import { runStoppedSql } from './runs.js';

export interface RunRevocation {
  run_id: RunId;
  /** The invoker who revoked the run; null for the operator. */
  revoked_by: string | null;
  revoked_at: Date;
  /** Set when nobody revoked the run by hand: its invoker's access ended on purpose. */
  because?: 'invoker_access_ended' | null;
}

/** Who settles a revoked run's approvals, as the runner's answer names them. */
const revocationName = 'the revocation of the run';

/** Denies one pending approval of a revoked run, inside the caller's transaction. */
export function denyForRevocation(
  tx: pg.PoolClient,
  sessionId: SessionId,
  toolCallId: ToolCallId,
): Promise<Settlement> {
  return settleAndRecord(tx, sessionId, toolCallId, { by: 'revocation' }, revocationName);
}

/** Denies each pending approval of the session in the transaction: the calls they paused. */
async function denyPendingApprovals(
  tx: pg.PoolClient,
  sessionId: SessionId,
): Promise<ToolCallId[]> {
  const denied: ToolCallId[] = [];
  for (const toolCallId of await pendingApprovalsOfSession(tx, sessionId)) {
    const settled = await denyForRevocation(tx, sessionId, toolCallId);
    if (settled.outcome === 'decided') denied.push(toolCallId);
  }
  return denied;
}

/**
 * Revokes a run, once: the revocation row, `run.revoked` in the run's ledger, then every pending
 * approval of the run denied (each with its approval.decided and tool.decision), in one
 * transaction. The run's row is locked first, which waits for any transaction still writing a
 * call or an approval of the run (their references hold a lock on it), so none is left pending
 * unseen; then its pending approvals, then the ledger, the order every decider takes them in. Revoking again changes nothing and returns the first revocation, with no call denied.
 */
export function revokeRun(
  pool: Pool,
  run: { id: RunId; session_id: SessionId },
  revokedBy: string | null,
): Promise<{ revocation: RunRevocation; denied: ToolCallId[] }> {
  return withTransaction(pool, (tx) => revokeRunIn(tx, run, revokedBy));
}

/** {@link revokeRun} in the caller's transaction. */
async function revokeRunIn(
  tx: pg.PoolClient,
  run: { id: RunId; session_id: SessionId },
  revokedBy: string | null,
): Promise<{ revocation: RunRevocation; denied: ToolCallId[] }> {
  await tx.query('select 1 from runs where id = $1 for update', [run.id]);
  // The pending approvals before the ledger's head, as a person's decision takes them: taken
  // the other way round, a decision landing now would deadlock with the revocation.
  await tx.query(
    `select 1 from approvals where session_id = $1 and status = 'pending'
     order by tool_call_id for update`,
    [run.session_id],
  );
  const inserted = await tx.query<RunRevocation>(
    `insert into run_revocations (run_id, revoked_by) values ($1, $2)
     on conflict (run_id) do nothing
     returning run_id, revoked_by, revoked_at`,
    [run.id, revokedBy],
  );
  const revocation = inserted.rows[0];
  if (!revocation) {
    const first = await findRunRevocation(tx, run.id);
    if (!first) throw new Error(`the revocation of run ${run.id} vanished`);
    return { revocation: first, denied: [] };
  }
  await appendEvent(
    tx,
    run.session_id,
    redact('run.revoked', { run_id: run.id, revoked_by: revokedBy }),
  );
  return { revocation, denied: await denyPendingApprovals(tx, run.session_id) };
}

/**
 * The run's revocation: its own, or its invoker's runs ended with their access after it started
 * (no one revoked it by hand then: `revoked_by` is null, `because` says why).
 */
export async function findRunRevocation(
  db: Queryable,
  runId: RunId,
): Promise<RunRevocation | undefined> {
  const { rows } = await db.query<RunRevocation>(
    `select run_id, revoked_by, revoked_at, null as because from run_revocations where run_id = $1
     union all
     select r.id, null, m.runs_ended_at, 'invoker_access_ended'
     from runs r join members m on m.id = r.invoked_by
     where r.id = $1 and m.runs_ended_at >= r.created_at
     limit 1`,
    [runId],
  );
  return rows[0];
}

/** Which of these runs have been revoked. */
export async function revokedAmong(db: Queryable, runIds: readonly RunId[]): Promise<RunId[]> {
  const { rows } = await db.query<{ run_id: RunId }>(
    `select r.id as run_id from runs r where r.id = any($1::uuid[]) and ${runStoppedSql('r')}`,
    [runIds],
  );
  return rows.map((row) => row.run_id);
}
