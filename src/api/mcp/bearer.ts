import type { FastifyRequest } from 'fastify';
import { verifyMcpAccessToken } from '../../application/mcp-oauth/tokens.js';
import { hashToken, tokenKind } from '../../application/tokens.js';
import type { Pool } from '../../store/pool.js';
import { findRunBySessionTokenHashEvenRevoked, type FrozenRun } from '../../store/runs.js';

/**
 * Who is calling `/mcp`: a run, by its session token. A revoked run's token still names its run
 * here (and only here), so that its client is told the tools are gone and every later call is a
 * deny it can read, rather than an authentication loop.
 */
export interface McpPrincipal {
  run: FrozenRun;
  revoked: boolean;
}

/** The path of the protected resource's metadata (RFC 9728) for `/mcp`. */
export const mcpResourceMetadataPath = '/.well-known/oauth-protected-resource/mcp';

/** Why `/mcp` refused a bearer: answered 401 with `WWW-Authenticate` naming the metadata. */
export class McpUnauthenticated extends Error {
  override name = 'McpUnauthenticated';
  constructor(
    message: string,
    /** A token was presented and refused: the challenge says `invalid_token` (RFC 6750 §3.1). */
    readonly options: { tokenPresented?: boolean } = {},
  ) {
    super(message);
  }
}

function bearerOf(request: FastifyRequest): string | undefined {
  const header = request.headers.authorization;
  if (!header) return undefined;
  return /^Bearer ([\x21-\x7e]{1,512})$/i.exec(header)?.[1];
}

/**
 * The run an `Authorization: Bearer` header acts for on `/mcp`: a run's session token, or an
 * access token the gate's OAuth server issued for a run and for this `resource` (an interactive
 * client's). An OAuth token of a revoked run, an expired one, one for another resource or of a
 * person no longer an active member is refused: its client authorizes again, which makes a new
 * run. The client's token is never passed on: brokered calls reach their upstream with the
 * connection's own sealed credential.
 */
export async function mcpPrincipal(
  pool: Pool,
  request: FastifyRequest,
  resource: string,
): Promise<McpPrincipal> {
  const token = bearerOf(request);
  if (token === undefined) throw new McpUnauthenticated('a bearer token is required');
  if (tokenKind(token) === 'session') {
    const found = await findRunBySessionTokenHashEvenRevoked(pool, hashToken(token));
    if (found) return found;
  }
  const run = await verifyMcpAccessToken(pool, token, resource);
  if (run) return { run, revoked: false };
  throw new McpUnauthenticated('the bearer token is not one this endpoint accepts', {
    tokenPresented: true,
  });
}

/** The `WWW-Authenticate` value of a 401 from `/mcp`: where a client learns how to sign in. */
export function mcpChallenge(publicUrl: string, error?: string): string {
  const metadata = new URL(mcpResourceMetadataPath, publicUrl).toString();
  return `Bearer resource_metadata="${metadata}"${error ? `, error="${error}"` : ''}`;
}
