import { mayDecide } from '../domain/gate/approval.js';
import { lockGrant, revokeGrant } from '../store/approval-grants.js';
import { lockMember, type Member } from '../store/members.js';
import { withTransaction, type Pool } from '../store/pool.js';

type GrantRevocation =
  { outcome: 'revoked' | 'already_ended' } | { outcome: 'forbidden' } | { outcome: 'not_found' };

/**
 * Any member who may decide the calls a grant covers may end it (a personal connection's grant:
 * its owner only), with grant.revoked in the same transaction. Calls already let through stay so.
 */
export async function revokeRunGrant(
  pool: Pool,
  request: { member: Member; runId: string; grantId: string },
): Promise<GrantRevocation> {
  return withTransaction(pool, async (tx) => {
    const grant = await lockGrant(tx, request.runId, request.grantId);
    if (grant?.workspace_id !== request.member.workspace_id) return { outcome: 'not_found' };
    const current = await lockMember(tx, request.member.id);
    if (!current || !mayDecide(grant, current)) return { outcome: 'forbidden' };
    return { outcome: (await revokeGrant(tx, grant, current.id)) ? 'revoked' : 'already_ended' };
  });
}
