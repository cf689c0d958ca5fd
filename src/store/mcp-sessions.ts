import type { RunId } from '../domain/gate/ids.js';
import type { Queryable } from './pool.js';

/**
 * How many sessions a run keeps open: twice the notice streams it may hold at once (`streams` in
 * ../api/caller-slots.ts), so no client still streaming loses its session to another. A client
 * that never ends its sessions (most just stop using them) would otherwise add a row at every
 * `initialize`, without end; past this the oldest is ended, and its client, answered 404, starts
 * a new one as the protocol says.
 */
export const openMcpSessionsPerRun = 1_000;

/**
 * Opens a remote MCP session for the run whose token initialised it, and ends the run's oldest
 * open ones past `openMcpSessionsPerRun`, in the same statement.
 */
export async function openMcpSession(
  db: Queryable,
  session: { id: string; runId: RunId; protocolVersion: string },
): Promise<void> {
  await db.query(
    `with oldest as (
       delete from mcp_sessions where id in (
         select id from mcp_sessions where run_id = $2
         order by created_at desc, id offset $4))
     insert into mcp_sessions (id, run_id, protocol_version) values ($1, $2, $3)`,
    // The new one is not seen by the delete: the others keep one place fewer.
    [session.id, session.runId, session.protocolVersion, openMcpSessionsPerRun - 1],
  );
}

/** Whether the session is open and the run's own: another run's session id is none of its. */
export async function isOpenMcpSession(db: Queryable, id: string, runId: RunId): Promise<boolean> {
  const { rows } = await db.query(`select 1 from mcp_sessions where id = $1 and run_id = $2`, [
    id,
    runId,
  ]);
  return rows.length > 0;
}

/** Ends the run's session (`DELETE /mcp`); false when it was no open session of the run. */
export async function endMcpSession(db: Queryable, id: string, runId: RunId): Promise<boolean> {
  const { rowCount } = await db.query(`delete from mcp_sessions where id = $1 and run_id = $2`, [
    id,
    runId,
  ]);
  return (rowCount ?? 0) > 0;
}
