import { randomUUID } from 'node:crypto';
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
  revokeConnection as revoke,
  type ConnectionRow,
} from '../store/connections.js';
import { findMember } from '../store/members.js';
import type { Pool } from '../store/pool.js';
import { workspaceExists } from '../store/workspaces.js';
import { ConflictError, InvalidInputError, NotFoundError } from './errors.js';

export interface ConnectionDeps {
  pool: Pool;
  sealer: CredentialSealer;
}

export interface ConnectionRequest {
  workspace: string;
  name: string;
  kind: 'org' | 'personal';
  owner_user_id?: string | undefined;
  url: string;
  credential: BearerCredential;
}

/** The server's tools now, named for the model (`mcp__<name>__<tool>`). */
async function photograph(name: string, url: string, credential: BearerCredential) {
  const listed = await photographHttp(url, credential);
  return photographMcpTools(name, listed);
}

async function mustHaveActiveOwner(pool: Pool, workspace: string, ownerId: string) {
  const owner = await findMember(pool, workspace, ownerId);
  if (owner?.status !== 'active') {
    throw new InvalidInputError('the owner must be an active member of the workspace', [
      { path: 'owner_user_id', message: 'not an active member of this workspace' },
    ]);
  }
}

/**
 * Registers a brokered MCP server: photographs its tools now and seals the credential, bound to
 * the connection's id. A server that cannot be photographed is refused (PhotographError).
 */
export async function registerConnection(
  { pool, sealer }: ConnectionDeps,
  request: ConnectionRequest,
): Promise<ConnectionRow> {
  if (!(await workspaceExists(pool, request.workspace))) {
    throw new NotFoundError(`workspace ${request.workspace}`);
  }
  if (request.owner_user_id)
    await mustHaveActiveOwner(pool, request.workspace, request.owner_user_id);
  const shot: McpPhotograph = await photograph(request.name, request.url, request.credential);
  const id = randomUUID();
  const row = await insertConnection(pool, {
    id,
    workspace_id: request.workspace,
    name: request.name,
    kind: request.kind,
    owner_user_id: request.owner_user_id ?? null,
    url: request.url,
    sealed_credential: sealer.seal(id, request.credential).toBytes(),
    tools: shot.tools,
    unusable: shot.unusable,
    digest: photographDigest(shot),
  });
  if (!row) {
    throw new ConflictError(`the workspace already has an active connection named ${request.name}`);
  }
  return row;
}

/** Photographs an active connection again; runs already started keep what they froze. */
export async function refreshConnectionTools(
  { pool, sealer }: ConnectionDeps,
  id: string,
): Promise<{ connection: ConnectionRow; diff: PhotographDiff }> {
  const row = await findConnection(pool, id);
  if (row?.status !== 'active') throw new NotFoundError(`active connection ${id}`);
  const credential = sealer.unseal(id, sealer.fromStored(row.sealed_credential));
  const shot = await photograph(row.name, row.url, credential);
  const updated = await replacePhotograph(pool, id, { ...shot, digest: photographDigest(shot) });
  if (!updated) throw new NotFoundError(`active connection ${id}`);
  return { connection: updated, diff: diffPhotographs(row.tools, updated.tools) };
}

/** A new credential: the generation moves on, so bindings frozen under the old one refuse. */
export async function reauthorizeConnection(
  { pool, sealer }: ConnectionDeps,
  id: string,
  credential: BearerCredential,
): Promise<ConnectionRow> {
  const updated = await storeCredential(pool, id, sealer.seal(id, credential).toBytes());
  if (!updated) throw new NotFoundError(`active connection ${id}`);
  return updated;
}

export async function revokeConnection(pool: Pool, id: string): Promise<ConnectionRow> {
  const revoked = await revoke(pool, id);
  if (!revoked) throw new NotFoundError(`connection ${id}`);
  return revoked;
}
