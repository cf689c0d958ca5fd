import assert from 'node:assert/strict';
import { describe, test } from 'vitest';
import {
  groupsIn,
  membershipChange,
  preferredMembership,
  roleFromGroups,
} from '../../../src/domain/identity/roles-from-groups.js';

const mapping = {
  groups_claim: 'groups',
  roles: { eng: 'member', 'eng-leads': 'approver', platform: 'admin' },
} as const;

describe('roles follow the provider groups', () => {
  test('the groups claim is a list of strings or one string; anything else lists none', () => {
    assert.deepEqual(groupsIn({ groups: ['a', 3, 'b'] }, 'groups'), ['a', 'b']);
    assert.deepEqual(groupsIn({ groups: 'a' }, 'groups'), ['a']);
    assert.deepEqual(groupsIn({ groups: { a: true } }, 'groups'), []);
    assert.deepEqual(groupsIn({}, 'groups'), []);
    assert.deepEqual(groupsIn({}, '__proto__'), []);
  });

  test('the highest role of the mapped groups held wins; unmapped groups give nothing', () => {
    assert.equal(roleFromGroups(['eng', 'eng-leads'], mapping), 'approver');
    assert.equal(roleFromGroups(['platform', 'eng'], mapping), 'admin');
    assert.equal(roleFromGroups(['sales', 'toString'], mapping), undefined);
    assert.equal(roleFromGroups([], mapping), undefined);
  });

  test('a sign-in creates, changes, reactivates or suspends the membership, and leaves alone what matches', () => {
    const cases = [
      ['approver', undefined, { kind: 'create', role: 'approver' }],
      ['admin', { role: 'approver', status: 'active' }, { kind: 'set', role: 'admin' }],
      ['member', { role: 'member', status: 'suspended' }, { kind: 'set', role: 'member' }],
      ['member', { role: 'member', status: 'active' }, { kind: 'none' }],
      [undefined, { role: 'approver', status: 'active' }, { kind: 'suspend' }],
      [undefined, { role: 'approver', status: 'suspended' }, { kind: 'none' }],
      [undefined, undefined, { kind: 'none' }],
    ] as const;
    for (const [role, existing, expected] of cases) {
      assert.deepEqual(
        membershipChange(role, existing),
        expected,
        JSON.stringify([role, existing]),
      );
    }
  });

  test('a web session opens on the membership with the highest role', () => {
    const chosen = preferredMembership([
      { id: 'a', role: 'member' },
      { id: 'b', role: 'admin' },
      { id: 'c', role: 'approver' },
    ] as const);
    assert.equal(chosen?.id, 'b');
    assert.equal(preferredMembership<{ role: 'member' }>([]), undefined);
  });
});
