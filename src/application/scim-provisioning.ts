/**
 * The identity provider provisions a workspace's people and groups (SCIM 2.0). A User is a
 * member of the workspace; a Group's members get the role the workspace's identity mapping gives
 * the group. Every change settles the standing of each member it touches in the same
 * transaction: a member deactivated, deleted or left without a role loses all access at once.
 */
import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import {
  keepImmutable,
  resourceAttributes,
  type Attributes,
} from '../domain/identity/scim/scim-attributes.js';
import { invalidValue, ScimError } from '../domain/identity/scim/scim-error.js';
import { applyPatch, type PatchOperation } from '../domain/identity/scim/scim-patch.js';
import { schemaOf } from '../domain/identity/scim/scim-render.js';
import { provisionedStanding, roleFromGroups } from '../domain/identity/roles-from-groups.js';
import {
  appendAccessEvent,
  changeMembership,
  lockMembership,
  type AccessActor,
  type DeniedCall,
} from '../store/member-access.js';
import { withTransaction, type Pool, type Queryable } from '../store/pool.js';
import {
  adoptMember,
  deleteScimResource,
  findScimResource,
  insertProvisionedMember,
  provisionedMemberIds,
  removeFromGroups,
  userIdsAmong,
  groupsByMember,
  groupsOfMember,
  insertScimResource,
  listScimResources,
  updateScimResource,
  type ScimKind,
  type ScimResourceRow,
} from '../store/scim-resources.js';
import { workspaceOfScimToken } from '../store/scim-tokens.js';
import { findWorkspaceIdentity } from '../store/workspace-identity.js';
import type { Waker } from '../temporal/gate-workflow-client.js';
import { hashToken, tokenKind } from './tokens.js';

const notFound = (kind: ScimKind, id: string) => new ScimError(404, `${kind} ${id} not found`);
const taken = (kind: ScimKind) =>
  new ScimError(
    409,
    kind === 'User'
      ? 'another User of this workspace has this userName'
      : 'another Group of this workspace has this displayName',
    'uniqueness',
  );

/** The name the gate shows for a provisioned member. */
function shownName(attributes: Attributes): string {
  const name = attributes.name as { formatted?: string } | undefined;
  const candidates = [attributes.displayName, name?.formatted, attributes.userName];
  const found = candidates.find((c): c is string => typeof c === 'string' && c.trim() !== '');
  return (found ?? 'provisioned member').slice(0, 200);
}

/**
 * Sets a provisioned member's role and status from what the provider says now: its User's
 * `active` (a deleted User is inactive), the groups it is in through the workspace's mapping, and
 * the operator's suspension, which no provider lifts.
 */
export async function settleProvisionedMember(
  tx: pg.PoolClient,
  workspaceId: string,
  memberId: string,
  actor: AccessActor,
  denied: DeniedCall[] = [],
): Promise<void> {
  const before = await lockMembership(tx, workspaceId, memberId);
  if (!before) return;
  const user = await findScimResource(tx, workspaceId, 'User', memberId);
  const groups = await groupsOfMember(tx, workspaceId, memberId);
  const mapping = await findWorkspaceIdentity(tx, workspaceId);
  const role = mapping
    ? roleFromGroups(
        groups.map((g) => g.display_name),
        mapping,
      )
    : undefined;
  const active = user !== undefined && user.attributes.active !== false;
  const standing = provisionedStanding({
    active,
    role,
    suspendedByOperator: before.suspended_by_operator,
  });
  await changeMembership(
    tx,
    before,
    {
      role: standing.role,
      status: standing.status,
      suspended_by_operator: before.suspended_by_operator,
    },
    actor,
    // Deactivated or deleted at the provider: on purpose, so the runs they invoked end too.
    { endsRuns: !active, denied },
  );
}

/** Wakes the workflows of paused calls denied in a transaction that has committed. */
export function wakeDenied(gate: Waker, denied: readonly DeniedCall[]): void {
  for (const call of denied) gate.wake(call.sessionId, call.toolCallId);
}

/** Settles several members in one order, so two changes never wait on each other's locks. */
async function settleAll(
  tx: pg.PoolClient,
  workspaceId: string,
  memberIds: Iterable<string>,
  denied: DeniedCall[] = [],
) {
  for (const id of [...new Set(memberIds)].sort()) {
    await settleProvisionedMember(tx, workspaceId, id, 'identity_provider', denied);
  }
}

/** The member ids a Group lists. */
function memberIdsOf(attributes: Attributes): string[] {
  const members = attributes.members;
  if (!Array.isArray(members)) return [];
  return members
    .map((m) => (m as { value?: unknown }).value)
    .filter((v): v is string => typeof v === 'string');
}

/** A Group's members must be Users of the workspace (groups do not nest here). */
async function requireUsers(tx: pg.PoolClient, workspaceId: string, attributes: Attributes) {
  const ids = memberIdsOf(attributes);
  const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
  const members = attributes.members as Attributes[] | undefined;
  if (members && ids.length !== members.length) {
    throw invalidValue('every member of a Group needs its value (the User id)');
  }
  const malformed = ids.find((id) => !uuid.test(id));
  if (malformed !== undefined) throw invalidValue(`members: no User has the id ${malformed}`);
  const known = await userIdsAmong(tx, workspaceId, ids);
  const unknown = ids.find((id) => !known.has(id.toLowerCase()));
  if (unknown !== undefined)
    throw invalidValue(`members: no User of this workspace has the id ${unknown}`);
  // Ids are kept as the database writes them, so containment finds them, and each once.
  if (!members) return;
  const seen = new Set<string>();
  attributes.members = members.filter((member) => {
    const value = String(member.value).toLowerCase();
    member.value = value;
    return !seen.has(value) && !!seen.add(value);
  });
}

/**
 * The member a new User is: one the person already has in the workspace (signed in before, or
 * provisioned before and deleted) when its person's subject is the `externalId` or its email the
 * `userName` or an email; else a new member, suspended until a group gives it a role.
 */
async function memberForUser(
  tx: pg.PoolClient,
  workspaceId: string,
  attributes: Attributes,
): Promise<string> {
  const emails = [
    attributes.userName,
    ...(Array.isArray(attributes.emails)
      ? attributes.emails.map((e) => (e as { value?: unknown }).value)
      : []),
  ]
    .filter((e): e is string => typeof e === 'string')
    .map((e) => e.toLowerCase());
  const adopted = await adoptMember(tx, workspaceId, {
    externalId: typeof attributes.externalId === 'string' ? attributes.externalId : null,
    emails,
  });
  return adopted ?? insertProvisionedMember(tx, workspaceId, shownName(attributes));
}

export async function createScimResource(
  deps: ScimDeps,
  workspaceId: string,
  kind: ScimKind,
  body: unknown,
): Promise<Provisioned> {
  const attributes = resourceAttributes(schemaOf(kind), body);
  return withWakes(deps, async (tx, denied) => {
    if (kind === 'Group') await requireUsers(tx, workspaceId, attributes);
    const id = kind === 'User' ? await memberForUser(tx, workspaceId, attributes) : randomUUID();
    const row = await insertScimResource(tx, { id, workspaceId, kind, attributes });
    if (!row) throw taken(kind);
    if (kind === 'User') {
      await appendAccessEvent(tx, {
        workspaceId,
        memberId: id,
        type: 'member.provisioned',
        actor: 'identity_provider',
      });
      await settleAll(tx, workspaceId, [id], denied);
    } else {
      await settleAll(tx, workspaceId, memberIdsOf(attributes), denied);
    }
    return withGroups(tx, row);
  });
}

/** A PUT (the whole resource) or a PATCH (operations), on a resource locked for it. */
export async function changeScimResource(
  deps: ScimDeps,
  workspaceId: string,
  kind: ScimKind,
  id: string,
  change: { replace: unknown } | { patch: PatchOperation[] },
): Promise<Provisioned> {
  const resource = schemaOf(kind);
  return withWakes(deps, async (tx, denied) => {
    const before = await findScimResource(tx, workspaceId, kind, id, true);
    if (!before) throw notFound(kind, id);
    let attributes: Attributes;
    if ('replace' in change) {
      attributes = resourceAttributes(resource, change.replace);
      keepImmutable(resource, before.attributes, attributes);
    } else {
      attributes = applyPatch(resource, before.attributes, change.patch);
    }
    if (kind === 'Group') await requireUsers(tx, workspaceId, attributes);
    // Only `active: true` reactivates: a PUT that leaves `active` out, or a PATCH that removes
    // it, keeps a deactivated User deactivated.
    if (kind === 'User' && attributes.active === undefined && before.attributes.active === false) {
      attributes = { ...attributes, active: false };
    }
    const row = await updateScimResource(tx, id, attributes);
    if (!row) throw taken(kind);
    await settleAll(
      tx,
      workspaceId,
      kind === 'User' ? [id] : [...memberIdsOf(before.attributes), ...memberIdsOf(attributes)],
      denied,
    );
    return withGroups(tx, row);
  });
}

/**
 * Deletes a resource. A deleted User's member stays on record, suspended with all its access
 * ended, and leaves every group; a deleted Group's members lose the role it gave.
 */
export async function deleteProvisioned(
  deps: ScimDeps,
  workspaceId: string,
  kind: ScimKind,
  id: string,
): Promise<void> {
  await withWakes(deps, async (tx, denied) => {
    const before = await findScimResource(tx, workspaceId, kind, id, true);
    if (!before) throw notFound(kind, id);
    await deleteScimResource(tx, id);
    if (kind === 'Group') {
      await settleAll(tx, workspaceId, memberIdsOf(before.attributes), denied);
      return;
    }
    await removeFromGroups(tx, workspaceId, id);
    await appendAccessEvent(tx, {
      workspaceId,
      memberId: id,
      type: 'member.deprovisioned',
      actor: 'identity_provider',
    });
    await settleAll(tx, workspaceId, [id], denied);
  });
}

/** What a provisioning change needs: the store, and Temporal to wake the calls it denied. */
interface ScimDeps {
  pool: Pool;
  gate: Waker;
}

/** A provisioning change in one transaction; the paused calls it denied are woken after it. */
async function withWakes<T>(
  deps: ScimDeps,
  change: (tx: pg.PoolClient, denied: DeniedCall[]) => Promise<T>,
): Promise<T> {
  const denied: DeniedCall[] = [];
  const result = await withTransaction(deps.pool, (tx) => {
    // A transaction tried again (PostgreSQL aborted it for another's sake) starts over.
    denied.length = 0;
    return change(tx, denied);
  });
  wakeDenied(deps.gate, denied);
  return result;
}

/** A provisioned resource and, for a User, the groups it is in: what the provider is served. */
export interface Provisioned {
  row: ScimResourceRow;
  groups: { id: string; display_name: string }[];
}

async function withGroups(db: Queryable, row: ScimResourceRow): Promise<Provisioned> {
  const groups = row.kind === 'User' ? await groupsOfMember(db, row.workspace_id, row.id) : [];
  return { row, groups };
}

export async function findProvisioned(
  pool: Pool,
  workspaceId: string,
  kind: ScimKind,
  id: string,
): Promise<Provisioned> {
  const row = await findScimResource(pool, workspaceId, kind, id);
  if (!row) throw notFound(kind, id);
  return withGroups(pool, row);
}

export async function listProvisioned(
  pool: Pool,
  workspaceId: string,
  kind: ScimKind,
): Promise<Provisioned[]> {
  const rows = await listScimResources(pool, workspaceId, kind);
  const groups =
    kind === 'User' ? await groupsByMember(pool, workspaceId) : new Map<string, never[]>();
  return rows.map((row) => ({ row, groups: groups.get(row.id) ?? [] }));
}

/** The workspace a SCIM token provisions; undefined for any other credential. */
export async function provisionedWorkspace(
  pool: Pool,
  token: string | undefined,
): Promise<string | undefined> {
  if (token === undefined || tokenKind(token) !== 'scim') return undefined;
  return workspaceOfScimToken(pool, hashToken(token));
}

/** After the identity mapping changed: every provisioned member's role follows it now. */
export async function settleWorkspace(tx: pg.PoolClient, workspaceId: string): Promise<void> {
  await settleAll(tx, workspaceId, await provisionedMemberIds(tx, workspaceId));
}
