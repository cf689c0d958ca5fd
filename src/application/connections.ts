import { randomUUID } from 'node:crypto';
import type { Resolve } from '../broker/address-reach.js';
import { photographHttp } from '../broker/http-mcp-server.js';
import type { BearerCredential, CredentialSealer } from '../broker/sealing.js';
import {
  diffPhotographs,
  photographMcpTools,
  type McpPhotograph,
  type PhotographDiff,
} from '../domain/tools/mcp-tools.js';
import { photographDigest } from '../domain/tools/tools.js';
import {
  findConnection,
  insertConnection,
  reauthorizeConnection as storeCredential,
  replacePhotograph,
  type ConnectionRow,
} from '../store/connections.js';
import type { Pool } from '../store/pool.js';
import {
  identityOf,
  mustBeRegistrable,
  type ConnectionTarget,
} from './connection-prerequisites.js';
import { ConflictError, NotFoundError } from '../domain/errors.js';
import { connectionDial, oauthAccessToken } from './oauth-connections.js';

export interface ConnectionDeps {
  pool: Pool;
  sealer: CredentialSealer;
  /** How the broker resolves the host names of connections' servers. */
  resolve: Resolve;
}

interface ConnectionRequest extends ConnectionTarget {
  credential: BearerCredential;
}

/** The server's tools now, named for the model (`mcp__<name>__<tool>`). */
async function photograph(
  deps: ConnectionDeps,
  name: string,
  url: string,
  credential: BearerCredential,
) {
  const listed = await photographHttp(url, credential, connectionDial(deps, url, credential));
  return photographMcpTools(name, listed);
}

/**
 * The bearer token a connection calls its server with (its own, or its OAuth access token), with
 * the operator's word on its server's network.
 */
export async function connectionCredential(
  deps: ConnectionDeps,
  row: ConnectionRow,
): Promise<BearerCredential> {
  if (row.credential_type === 'oauth') return oauthAccessToken(deps, row);
  return deps.sealer.unseal(row.id, deps.sealer.fromStored(row.sealed_credential));
}

/**
 * Registers a brokered MCP server: photographs its tools now and seals the credential, bound to
 * the connection's id. A server that cannot be photographed is refused (PhotographError).
 */
export async function registerConnection(
  deps: ConnectionDeps,
  request: ConnectionRequest,
): Promise<ConnectionRow> {
  const { pool, sealer } = deps;
  await mustBeRegistrable(pool, request);
  const shot: McpPhotograph = await photograph(deps, request.name, request.url, request.credential);
  const id = randomUUID();
  const row = await insertConnection(pool, {
    ...identityOf(id, request),
    sealed_credential: sealer.seal(id, request.credential).toBytes(),
    tools: shot.tools,
    unusable: shot.unusable,
    digest: photographDigest(shot),
    status: 'active',
    credential_type: 'bearer',
    scopes: null,
  });
  if (!row) {
    throw new ConflictError(`the workspace already has a connection named ${request.name}`);
  }
  return row;
}

/** Photographs an active connection again; runs already started keep what they froze. */
export async function refreshConnectionTools(
  deps: ConnectionDeps,
  id: string,
): Promise<{ connection: ConnectionRow; diff: PhotographDiff }> {
  const row = await findConnection(deps.pool, id);
  if (row?.status !== 'active') throw new NotFoundError(`active connection ${id}`);
  const shot = await photograph(deps, row.name, row.url, await connectionCredential(deps, row));
  const updated = await replacePhotograph(deps.pool, id, {
    ...shot,
    digest: photographDigest(shot),
  });
  if (!updated) throw new NotFoundError(`active connection ${id}`);
  return { connection: updated, diff: diffPhotographs(row.tools, updated.tools) };
}

/** A new credential: the generation moves on, so bindings frozen under the old one refuse. */
export async function reauthorizeConnection(
  { pool, sealer }: Pick<ConnectionDeps, 'pool' | 'sealer'>,
  id: string,
  credential: BearerCredential,
): Promise<ConnectionRow> {
  const row = await findConnection(pool, id);
  if (row?.credential_type === 'oauth') {
    throw new ConflictError(
      'an OAuth connection is reauthorized by its owner: send {"credential": {"type": "oauth"}} for a new authorize_url',
    );
  }
  const updated = await storeCredential(pool, id, sealer.seal(id, credential).toBytes());
  if (!updated) throw new NotFoundError(`active connection ${id}`);
  return updated;
}
