/**
 * Roles follow the identity provider's groups: what a person's groups claim makes of their
 * membership in each workspace that maps groups to roles. Pure: the sign-in loads and applies.
 */

export type Role = 'member' | 'approver' | 'admin';

/** A workspace's mapping: the claim that lists groups, and the role each group gives. */
export interface GroupRoles {
  groups_claim: string;
  roles: Record<string, Role>;
}

const rank: Record<Role, number> = { member: 1, approver: 2, admin: 3 };

/**
 * The groups a claim lists: an array of strings, or one string. Anything else (absent, a
 * number, an object) lists none, so a provider that stopped sending groups takes roles away
 * rather than leaving them.
 */
export function groupsIn(claims: Record<string, unknown>, claim: string): string[] {
  const value = Object.hasOwn(claims, claim) ? claims[claim] : undefined;
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.filter((group) => typeof group === 'string');
  return [];
}

/** The highest role any held group gives; undefined when none of them is mapped. */
export function roleFromGroups(groups: readonly string[], mapping: GroupRoles): Role | undefined {
  let best: Role | undefined;
  for (const group of groups) {
    const role = Object.hasOwn(mapping.roles, group) ? mapping.roles[group] : undefined;
    if (role && (!best || rank[role] > rank[best])) best = role;
  }
  return best;
}

/** What a sign-in does to one membership. */
type MembershipChange =
  | { kind: 'create'; role: Role }
  | { kind: 'set'; role: Role }
  | { kind: 'suspend' }
  | { kind: 'none' };

/**
 * A role held makes the membership (or brings it back, active, in that role); no role held
 * suspends an existing one, as the operator's suspension does; nothing is made for nobody.
 */
export function membershipChange(
  role: Role | undefined,
  existing: { role: Role; status: 'active' | 'suspended' } | undefined,
): MembershipChange {
  if (role === undefined) {
    return existing?.status === 'active' ? { kind: 'suspend' } : { kind: 'none' };
  }
  if (!existing) return { kind: 'create', role };
  if (existing.role === role && existing.status === 'active') return { kind: 'none' };
  return { kind: 'set', role };
}

/** Which of a person's active memberships a web session opens on: the highest role first. */
export function preferredMembership<T extends { role: Role }>(
  memberships: readonly T[],
): T | undefined {
  let best: T | undefined;
  for (const membership of memberships) {
    if (!best || rank[membership.role] > rank[best.role]) best = membership;
  }
  return best;
}

/**
 * A provisioned member's standing: active only while the provider says active, a group gives a
 * role, and the operator has not suspended them (a suspension no provider undoes).
 */
export function provisionedStanding(facts: {
  active: boolean;
  role: Role | undefined;
  suspendedByOperator: boolean;
}): { status: 'active' | 'suspended'; role: Role | undefined } {
  const status =
    facts.active && facts.role !== undefined && !facts.suspendedByOperator ? 'active' : 'suspended';
  return { status, role: facts.role };
}

/** Whether a change of role takes authority away (grants stand on the role that gave them). */
export function lowersRole(from: Role, to: Role): boolean {
  return rank[to] < rank[from];
}
