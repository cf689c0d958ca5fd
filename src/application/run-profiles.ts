import { EventEmitter } from 'node:events';
import { findCapabilityBundles } from '../store/capability-bundles.js';
import { findConnections } from '../store/connections.js';
import { findModelProvider } from '../store/model-providers.js';
import { findPolicyVersion } from '../store/policies.js';
import type { Pool } from '../store/pool.js';
import {
  deleteRunProfile,
  findRunProfile,
  insertRunProfile,
  listRunProfiles,
  runProfileNameTaken,
  updateRunProfile,
  type RunProfile,
  type RunProfileFields,
} from '../store/run-profiles.js';
import { workspaceExists } from '../store/workspaces.js';
import {
  ConflictError,
  InvalidInputError,
  NotFoundError,
  type FieldError,
} from '../domain/errors.js';

/** Who manages a workspace's profiles: the operator (any workspace) or an admin of their own. */
export interface ProfileAdmin {
  /** The admin's own workspace; undefined for the operator. */
  workspace?: string | undefined;
}

/** A profile was created, changed or deleted: what new runs from it get is different now. */
export interface RunProfileChange {
  workspace_id: string;
  profile_id: string;
  change: 'created' | 'updated' | 'deleted';
}

/**
 * Told after each committed change of a profile, in this process. A run already created keeps
 * what it froze; a listener (the remote MCP endpoint) may tell its clients that a new
 * authorization would now offer other tools (`notifications/tools/list_changed`).
 */
export const runProfileChanges = new EventEmitter<{ change: [RunProfileChange] }>();
// One listener per API in the process (`/mcp`'s notices); tests start many.
runProfileChanges.setMaxListeners(0);

/** Another workspace's profiles are as unknown to an admin as ones that do not exist. */
async function reachableWorkspace(pool: Pool, admin: ProfileAdmin, workspaceId: string) {
  const foreign = admin.workspace !== undefined && admin.workspace !== workspaceId;
  if (foreign || !(await workspaceExists(pool, workspaceId))) {
    throw new NotFoundError(`workspace ${workspaceId}`);
  }
}

/**
 * What a profile names must be usable by its runs: a policy, bundles, org connections and a
 * model provider of the same workspace. A personal connection is refused: a profile's runs are
 * invoked by whoever authorizes, and a personal connection serves its owner's runs only.
 */
async function checkReferences(pool: Pool, workspaceId: string, fields: RunProfileFields) {
  const errors: FieldError[] = [];
  const policy = await findPolicyVersion(pool, fields.policy_id);
  if (policy?.workspace_id !== workspaceId) {
    errors.push({ path: 'policy_id', message: `no policy ${fields.policy_id} in this workspace` });
  }
  const bundles = await findCapabilityBundles(pool, workspaceId, fields.tools.bundles);
  fields.tools.bundles.forEach((id, index) => {
    if (!bundles.some((b) => b.id === id)) {
      errors.push({
        path: `tools.bundles[${index}]`,
        message: `no bundle ${id} in this workspace`,
      });
    }
  });
  const ids = fields.tools.connections.map((c) => c.id);
  const connections = await findConnections(pool, workspaceId, ids);
  ids.forEach((id, index) => {
    const connection = connections.find((c) => c.id === id);
    const path = `tools.connections[${index}].id`;
    if (!connection || connection.status === 'revoked') {
      errors.push({ path, message: `no connection ${id} in this workspace` });
    } else if (connection.kind === 'personal') {
      errors.push({
        path,
        message: 'a personal connection serves its owner only, never a profile',
      });
    }
  });
  if (fields.model_provider_id !== null) {
    const provider = await findModelProvider(pool, fields.model_provider_id);
    if (provider?.workspace_id !== workspaceId || provider.removed_at) {
      errors.push({
        path: 'model_provider',
        message: `no model provider ${fields.model_provider_id} in this workspace`,
      });
    }
  }
  if (errors.length > 0)
    throw new InvalidInputError('the profile names what it cannot use', errors);
}

const nameTaken = (name: string) =>
  new ConflictError(`the workspace has a run profile named ${JSON.stringify(name)} already`);

export async function createRunProfile(
  pool: Pool,
  admin: ProfileAdmin,
  workspaceId: string,
  fields: RunProfileFields,
): Promise<RunProfile> {
  await reachableWorkspace(pool, admin, workspaceId);
  await checkReferences(pool, workspaceId, fields);
  const profile = await insertRunProfile(pool, workspaceId, fields);
  if (!profile) throw nameTaken(fields.name);
  runProfileChanges.emit('change', {
    workspace_id: workspaceId,
    profile_id: profile.id,
    change: 'created',
  });
  return profile;
}

export async function changeRunProfile(
  pool: Pool,
  admin: ProfileAdmin,
  workspaceId: string,
  id: string,
  fields: RunProfileFields,
): Promise<RunProfile> {
  await reachableWorkspace(pool, admin, workspaceId);
  if (!(await findRunProfile(pool, workspaceId, id))) throw new NotFoundError(`run profile ${id}`);
  await checkReferences(pool, workspaceId, fields);
  if (await runProfileNameTaken(pool, workspaceId, fields.name, id)) throw nameTaken(fields.name);
  const profile = await updateRunProfile(pool, workspaceId, id, fields);
  if (!profile) throw new NotFoundError(`run profile ${id}`);
  runProfileChanges.emit('change', {
    workspace_id: workspaceId,
    profile_id: id,
    change: 'updated',
  });
  return profile;
}

export async function removeRunProfile(
  pool: Pool,
  admin: ProfileAdmin,
  workspaceId: string,
  id: string,
): Promise<void> {
  await reachableWorkspace(pool, admin, workspaceId);
  if (!(await deleteRunProfile(pool, workspaceId, id)))
    throw new NotFoundError(`run profile ${id}`);
  runProfileChanges.emit('change', {
    workspace_id: workspaceId,
    profile_id: id,
    change: 'deleted',
  });
}

export async function runProfile(
  pool: Pool,
  admin: ProfileAdmin,
  workspaceId: string,
  id: string,
): Promise<RunProfile> {
  await reachableWorkspace(pool, admin, workspaceId);
  const profile = await findRunProfile(pool, workspaceId, id);
  if (!profile) throw new NotFoundError(`run profile ${id}`);
  return profile;
}

export async function runProfiles(
  pool: Pool,
  admin: ProfileAdmin,
  workspaceId: string,
): Promise<RunProfile[]> {
  await reachableWorkspace(pool, admin, workspaceId);
  return listRunProfiles(pool, workspaceId);
}
