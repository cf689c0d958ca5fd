/**
 * Standing approvals: "approve, and allow the same without asking". A grant's scope is the
 * gate's offer, never written by the approver (grant-scopes.ts); it answers only what asked the
 * way the approved call asked (the same rule of the same policy version) and only while its
 * grantor still has authority over the call.
 */
import { mayDecide, type Authority } from '../gate/approval.js';
import { isGrantScope, scopeOutcome } from './grant-scopes.js';

/** What sent a call to a person: the rule (null: the policy's default) and its version. */
export interface AskedBy {
  rule_id: string | null;
  policy_version: number;
}

export interface ActiveGrant {
  id: string;
  /** As stored: a scope of an older shape covers nothing. */
  scope: unknown;
  asked: AskedBy;
  /** Its length in seconds, null for the rest of the run. */
  for_s: number | null;
  /** Its end, null for the rest of the run: from then it covers nothing. */
  expires_at: Date | null;
  granted_by: string;
  granted_by_name: string;
  /** The grantor's membership now: a grant lives no longer than its grantor's authority. */
  grantor: { id: string; workspace_id: string; role: string; status: string };
}

export interface AskingCall {
  tool: string;
  arguments: Record<string, unknown>;
  asked: AskedBy;
  authority: { workspace_id: string; authority: Authority; owner_user_id: string | null };
  /** When it asks. */
  at: Date;
}

/** Whether one grant surely covers the call. */
function grantCovers(grant: ActiveGrant, call: AskingCall): boolean {
  return (
    isGrantScope(grant.scope) &&
    (grant.expires_at === null || grant.expires_at > call.at) &&
    grant.asked.rule_id === call.asked.rule_id &&
    grant.asked.policy_version === call.asked.policy_version &&
    mayDecide(call.authority, grant.grantor) &&
    scopeOutcome(grant.scope, call) === 'match'
  );
}

/**
 * The first grant that covers a call. Its grantor must still have authority over the call: a
 * personal connection's call is covered only by its owner's grant, whatever anyone's role.
 */
export function coveringGrant(
  grants: readonly ActiveGrant[],
  call: AskingCall,
): ActiveGrant | undefined {
  return grants.find((grant) => grantCovers(grant, call));
}
