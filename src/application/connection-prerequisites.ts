import { findMember } from '../store/members.js';
import type { Pool } from '../store/pool.js';
import { workspaceExists } from '../store/workspaces.js';
import { InvalidInputError, NotFoundError } from '../domain/errors.js';

/** What every new connection names, whatever its credential. */
export interface ConnectionTarget {
  workspace: string;
  name: string;
  kind: 'org' | 'personal';
  owner_user_id?: string | undefined;
  url: string;
}

/** A connection is registered in a workspace that exists, for an owner who is active in it. */
export async function mustBeRegistrable(pool: Pool, target: ConnectionTarget): Promise<void> {
  if (!(await workspaceExists(pool, target.workspace))) {
    throw new NotFoundError(`workspace ${target.workspace}`);
  }
  if (target.owner_user_id === undefined) return;
  const owner = await findMember(pool, target.workspace, target.owner_user_id);
  if (owner?.status !== 'active') {
    throw new InvalidInputError('the owner must be an active member of the workspace', [
      { path: 'owner_user_id', message: 'not an active member of this workspace' },
    ]);
  }
}

/** The columns of a new connection that say what it is, whatever its credential. */
export function identityOf(id: string, target: ConnectionTarget) {
  return {
    id,
    workspace_id: target.workspace,
    name: target.name,
    kind: target.kind,
    owner_user_id: target.owner_user_id ?? null,
    url: target.url,
  };
}
