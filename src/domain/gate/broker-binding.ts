import type { Binding } from '../tools/tools.js';

/** A connection as the broker reads it just before opening its credential. */
export interface BoundConnection {
  status: 'active' | 'revoked';
  auth_generation: number;
  /** Set for a personal connection. */
  owner_user_id: string | null;
}

export type BindingCheck<C> = { holds: true; connection: C } | { holds: false; reason: string };

/**
 * Before a sealed credential is opened, the binding the run froze must still hold: the
 * connection active under the same authorisation generation and, for a personal connection,
 * its owner an active member. Any doubt refuses, and nothing is executed.
 */
export function checkBrokerBinding<C extends BoundConnection>(
  binding: Binding | null,
  connection: C | undefined,
  owner: { status: string } | undefined,
): BindingCheck<C> {
  if (
    !binding ||
    connection?.status !== 'active' ||
    connection.auth_generation !== binding.auth_generation
  ) {
    const reason = 'the connection is no longer bound as the run froze it; nothing was executed';
    return { holds: false, reason };
  }
  if (connection.owner_user_id && owner?.status !== 'active') {
    return { holds: false, reason: "the personal connection's owner is not an active member" };
  }
  return { holds: true, connection };
}
