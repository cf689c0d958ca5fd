import type { RunId } from '../domain/gate/ids.js';
import type { Queryable } from './pool.js';

/** Opens a remote MCP session for the run whose token initialised it. */
export async function openMcpSession(
  db: Queryable,
  session: { id: string; runId: RunId; protocolVersion: string },
): Promise<void> {
  await db.query(`insert into mcp_sessions (id, run_id, protocol_version) values ($1, $2, $3)`, [
    session.id,
    session.runId,
    session.protocolVersion,
  ]);
}

/** Whether the session is open and the run's own: another run's session id is none of its. */
export async function isOpenMcpSession(db: Queryable, id: string, runId: RunId): Promise<boolean> {
  const { rows } = await db.query(
    `select 1 from mcp_sessions where id = $1 and run_id = $2 and ended_at is null`,
    [id, runId],
  );
  return rows.length > 0;
}

/** Ends the run's session (`DELETE /mcp`); false when it was no open session of the run. */
export async function endMcpSession(db: Queryable, id: string, runId: RunId): Promise<boolean> {
  const { rowCount } = await db.query(
    `update mcp_sessions set ended_at = now()
     where id = $1 and run_id = $2 and ended_at is null`,
    [id, runId],
  );
  return (rowCount ?? 0) > 0;
}
