/**
 * What the broker checks at the call itself, after any wait (an approval may take hours): the
 * capability stage's own verdict again, then the server's live definition of the tool. Pure.
 */
import { capabilityVerdict, type CalledTool, type ConnectionState } from './stage-verdicts.js';
import type { Denial } from './vocabulary.js';

/** A connection as the broker reads it just before opening its credential. */
export interface BrokeredConnection extends ConnectionState {
  /** Set for a personal connection. */
  owner_user_id: string | null;
}

type BrokerVerdict<C> = { outcome: 'pass'; connection: C } | Denial;

const nothingExecuted = (denial: Denial, where: string): Denial => ({
  ...denial,
  reason: `${denial.reason} (${where}; nothing was executed)`,
});

/**
 * Before a sealed credential is opened: the run not revoked since its call was allowed, the
 * capability verdict the stage gave, on the connection as read now (status, authorisation
 * generation, the frozen digest against its photograph), and for a personal connection its owner
 * an active member. Any doubt refuses.
 */
export function brokerVerdict<C extends BrokeredConnection>(
  called: CalledTool,
  connection: C | undefined,
  owner: { status: string } | undefined,
  runRevoked = false,
): BrokerVerdict<C> {
  if (runRevoked) {
    const reason = 'the run was revoked: its bindings refuse';
    return nothingExecuted({ outcome: 'deny', source: 'binding', reason }, 'checked at the call');
  }
  const capability = capabilityVerdict(called, connection);
  if (capability.outcome === 'deny') return nothingExecuted(capability, 'checked at the call');
  if (!connection) {
    const reason = `"${called.name}" is not a brokered tool`;
    return nothingExecuted({ outcome: 'deny', source: 'binding', reason }, 'checked at the call');
  }
  if (connection.owner_user_id && owner?.status !== 'active') {
    const reason = "the personal connection's owner is not an active member";
    return nothingExecuted({ outcome: 'deny', source: 'binding', reason }, 'checked at the call');
  }
  return { outcome: 'pass', connection };
}

/**
 * The tool as the server lists it now, on the session that would carry the call, against the
 * digest the run froze: a tool changed or withdrawn since is a capability deny at the call, not
 * at the next refresh. `live` is the server's tools/list photographed under the connection's name.
 */
export function liveDefinitionVerdict(
  called: CalledTool,
  connection: ConnectionState,
  live: readonly { name: string; digest: string }[],
): Denial | undefined {
  const verdict = capabilityVerdict(called, { ...connection, tools: live });
  if (verdict.outcome === 'pass') return undefined;
  return nothingExecuted(verdict, "seen in the server's tools/list just before the call");
}
