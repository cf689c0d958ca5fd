/**
 * Who may do what with a connection's custody, and when its access token is due. Pure.
 *
 * A personal connection is one human's custody of their own credential: only its owner
 * authorizes it (connects, reconnects) or uses that authorization; an admin may still revoke it,
 * which takes custody away without using it. An org connection is an admin's to authorize.
 */

export interface CustodyMember {
  id: string;
  workspace_id: string;
  role: 'member' | 'approver' | 'admin';
  status: 'active' | 'suspended';
}

export interface CustodyConnection {
  workspace_id: string;
  kind: 'org' | 'personal';
  owner_user_id: string | null;
}

function ofWorkspace(connection: CustodyConnection, member: CustodyMember): boolean {
  return member.status === 'active' && member.workspace_id === connection.workspace_id;
}

/** Connects or reconnects: the owner of a personal connection; an admin for an org one. */
export function mayAuthorize(connection: CustodyConnection, member: CustodyMember): boolean {
  if (!ofWorkspace(connection, member)) return false;
  return connection.kind === 'personal'
    ? connection.owner_user_id === member.id
    : member.role === 'admin';
}

/** Disconnects: whoever may authorize it, and an admin for any connection of the workspace. */
export function mayDisconnect(connection: CustodyConnection, member: CustodyMember): boolean {
  return (
    mayAuthorize(connection, member) || (ofWorkspace(connection, member) && member.role === 'admin')
  );
}

/** At most this long before expiry an access token is refreshed; sooner for short-lived ones. */
const refreshMarginMs = 30_000;

/**
 * Whether an access token should be refreshed before it is used: within the margin of its expiry
 * (half its lifetime for a token that lives under a minute). A token of unknown expiry is used
 * until the server refuses it.
 */
export function accessTokenDue(
  token: { expires_at?: number | undefined; lifetime_s?: number | undefined },
  now: number,
): boolean {
  if (token.expires_at === undefined) return false;
  const lifetimeMs = (token.lifetime_s ?? Infinity) * 1000;
  return now >= token.expires_at - Math.min(refreshMarginMs, lifetimeMs / 2);
}

/** The issuer an authorization was sent to, as its discovery found it (RFC 8414 metadata). */
interface SentTo {
  issuer: string;
  /** The server's metadata says its authorization responses carry `iss` (RFC 9207). */
  sendsIss: boolean;
}

/**
 * Whether an authorization response may be from the server the authorization was sent to (RFC
 * 9207, the mix-up defence): a server that says it sends `iss` must send its own; any `iss` sent
 * must be that issuer. Answers why not, or undefined.
 */
export function responseIssuerRefusal(sentTo: SentTo, iss: string | undefined): string | undefined {
  if (iss === undefined) {
    return sentTo.sendsIss
      ? `the answer carries no issuer, though ${sentTo.issuer} says it names itself in every answer`
      : undefined;
  }
  if (iss !== sentTo.issuer) {
    return `the answer comes from ${iss}, not from ${sentTo.issuer}, where this authorization was sent`;
  }
  return undefined;
}

/**
 * Whether a client the gate holds may be presented to `issuer`: a client (and its secret)
 * belongs to the one authorization server it was first used with. Answers why not, or undefined.
 */
export function clientIssuerRefusal(
  boundTo: string | undefined,
  issuer: string,
): string | undefined {
  if (boundTo === undefined || boundTo === issuer) return undefined;
  return `the client this connection holds belongs to ${boundTo}, and its server now names ${issuer}; the operator registers the connection again to use another authorization server`;
}
