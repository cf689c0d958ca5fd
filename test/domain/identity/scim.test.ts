/**
 * The SCIM service provider's pure parts: filters (RFC 7644 §3.4.2.2), PATCH (§3.5.2), the
 * attributes a write keeps, projections and pages. Each refusal is a SCIM error with its type.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'vitest';
import {
  attributeList,
  project,
  resourceAttributes,
} from '../../../src/domain/identity/scim/scim-attributes.js';
import { ScimError } from '../../../src/domain/identity/scim/scim-error.js';
import { matches, parseFilter } from '../../../src/domain/identity/scim/scim-filter.js';
import { applyPatch, patchOperations } from '../../../src/domain/identity/scim/scim-patch.js';
import { listResponse } from '../../../src/domain/identity/scim/scim-render.js';
import {
  groupResource,
  maxResults,
  userResource,
  userSchema,
} from '../../../src/domain/identity/scim/scim-schemas.js';

const dana = {
  id: 'a1',
  externalId: '00u1ABC',
  userName: 'Dana@Acme.test',
  displayName: 'Dana Leaver',
  name: { givenName: 'Dana', familyName: 'Leaver' },
  emails: [
    { value: 'dana@acme.test', type: 'work', primary: true },
    { value: 'dana@home.test', type: 'home' },
  ],
  active: true,
  meta: { lastModified: '2026-11-02T10:00:00.000Z' },
};

function refusedWith(scimType: string, run: () => unknown) {
  assert.throws(run, (error: unknown) => {
    assert.ok(error instanceof ScimError, String(error));
    assert.equal(error.status, 400);
    assert.equal(error.scimType, scimType);
    return true;
  });
}

describe('SCIM filters', () => {
  const cases: [string, boolean][] = [
    ['userName eq "dana@acme.test"', true], // case-insensitive, as userName is
    ['userName eq "dana@acme.tes"', false],
    ['externalId eq "00u1ABC"', true],
    ['externalId eq "00u1abc"', false], // an identifier compares exactly
    ['displayName eq "Dana Leaver"', true],
    [`${userSchema}:userName eq "dana@acme.test"`, true],
    ['name.givenName sw "Da"', true],
    ['emails co "home.test"', true],
    ['emails[type eq "work" and value ew "@acme.test"]', true],
    ['emails[type eq "other"]', false],
    ['emails.type eq "home"', true],
    ['active eq true', true],
    ['active eq false', false],
    ['title pr', false],
    ['displayName pr and not (active eq false)', true],
    ['userName eq "x" or (displayName co "leav" and active eq true)', true],
    ['meta.lastModified gt "2026-11-01T00:00:00Z"', true],
    ['meta.lastModified lt "2026-11-01T00:00:00Z"', false],
    ['displayName ne "Dana Leaver"', false],
  ];
  for (const [filter, expected] of cases) {
    test(`${filter} → ${expected}`, () => {
      assert.equal(matches(parseFilter(filter, [userSchema]), dana), expected);
    });
  }

  test('a filter it cannot read is refused as invalidFilter, never thrown otherwise', () => {
    for (const bad of [
      '',
      'userName',
      'userName eq',
      'userName eq "open',
      'userName zz "x"',
      '(userName eq "x"',
      'userName eq "x")',
      'emails[type eq "work"',
      'active gt true',
      'userName eq "\\q"',
      '('.repeat(100) + 'a pr' + ')'.repeat(100),
      'a pr and '.repeat(1000) + 'a pr',
    ]) {
      refusedWith('invalidFilter', () => matches(parseFilter(bad), dana));
    }
  });
});

describe('SCIM PATCH', () => {
  const group = { displayName: 'approvers', members: [{ value: 'u1' }, { value: 'u2' }] };
  const ops = (...operations: unknown[]) =>
    patchOperations({ schemas: [], Operations: operations });

  test('Okta and Entra ID take a member out of a group, each its own way', () => {
    for (const remove of [
      { op: 'remove', path: 'members[value eq "u1"]' },
      { op: 'Remove', path: 'members', value: [{ value: 'u1' }] },
      // One value alone, not in a list: that one member out, never the whole group.
      { op: 'remove', path: 'members', value: { value: 'u1' } },
      { op: 'remove', path: 'members', value: 'U1' },
    ]) {
      assert.deepEqual(applyPatch(groupResource, group, ops(remove)).members, [{ value: 'u2' }]);
    }
  });

  test('adding and removing 9,000 members at once takes linear time, not quadratic', () => {
    const many = Array.from({ length: 9_000 }, (_, i) => ({ value: `user-${i}` }));
    const started = performance.now();
    const added = applyPatch(
      groupResource,
      group,
      ops({ op: 'add', path: 'members', value: many }),
    );
    assert.equal((added.members as unknown[]).length, 9_002);
    const removed = applyPatch(
      groupResource,
      added,
      ops({ op: 'remove', path: 'members', value: many }),
    );
    assert.deepEqual(removed.members, group.members);
    assert.ok(performance.now() - started < 2_000, `${performance.now() - started} ms`);
  });

  test('a userName or displayName longer than 256 characters is an invalidValue naming it', () => {
    const long = '名'.repeat(257);
    for (const [resource, attributes, name] of [
      [userResource, { userName: 'a@acme.test' }, 'userName'],
      [groupResource, group, 'displayName'],
    ] as const) {
      assert.throws(
        () => applyPatch(resource, attributes, ops({ op: 'replace', path: name, value: long })),
        (e: unknown) =>
          e instanceof ScimError && e.scimType === 'invalidValue' && e.message.includes(name),
      );
    }
  });

  test('add appends values not yet there; replace sets; remove of the last value drops it', () => {
    const added = applyPatch(
      groupResource,
      group,
      ops({ op: 'add', path: 'members', value: [{ value: 'u2' }, { value: 'u3' }] }),
    );
    assert.deepEqual(added.members, [{ value: 'u1' }, { value: 'u2' }, { value: 'u3' }]);
    const renamed = applyPatch(
      groupResource,
      group,
      ops({ op: 'replace', value: { displayName: 'admins' } }),
    );
    assert.equal(renamed.displayName, 'admins');
    const emptied = applyPatch(
      groupResource,
      { displayName: 'x', members: [{ value: 'u1' }] },
      ops({ op: 'remove', path: 'members[value eq "u1"]' }),
    );
    assert.equal(emptied.members, undefined);
  });

  test('Entra ID deactivates with "False", and sets a work email that was not there', () => {
    const user = { userName: 'dana', active: true };
    const changed = applyPatch(
      userResource,
      user,
      ops(
        { op: 'Replace', path: 'active', value: 'False' },
        { op: 'replace', path: 'emails[type eq "work"].value', value: 'dana@acme.test' },
        { op: 'replace', path: 'name.givenName', value: 'Dana' },
      ),
    );
    assert.deepEqual(changed, {
      userName: 'dana',
      active: false,
      emails: [{ type: 'work', value: 'dana@acme.test' }],
      name: { givenName: 'Dana' },
    });
  });

  test('a bad operation is refused with its SCIM type', () => {
    const user = { userName: 'dana' };
    refusedWith('invalidSyntax', () => patchOperations({ Operations: [] }));
    refusedWith('invalidSyntax', () => patchOperations({ Operations: [{ op: 'move' }] }));
    refusedWith('noTarget', () => applyPatch(userResource, user, ops({ op: 'remove' })));
    refusedWith('invalidPath', () =>
      applyPatch(userResource, user, ops({ op: 'add', path: 'title', value: 'x' })),
    );
    refusedWith('mutability', () =>
      applyPatch(userResource, user, ops({ op: 'add', path: 'groups', value: [{ value: 'g' }] })),
    );
    refusedWith('mutability', () =>
      applyPatch(userResource, user, ops({ op: 'remove', path: 'userName' })),
    );
    refusedWith('invalidValue', () =>
      applyPatch(userResource, user, ops({ op: 'replace', path: 'active', value: 'maybe' })),
    );
    refusedWith('noTarget', () =>
      applyPatch(
        groupResource,
        group,
        ops({ op: 'replace', path: 'members[value eq "u9"]', value: { value: 'u8' } }),
      ),
    );
  });
});

describe('SCIM attributes, projections and pages', () => {
  test('a write keeps the schema’s attributes by their names; read-only and unknown ones are left out', () => {
    const kept = resourceAttributes(userResource, {
      schemas: [userSchema],
      id: 'chosen-by-client',
      USERNAME: 'dana',
      Active: 'true',
      groups: [{ value: 'g1' }],
      'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User': { department: 'x' },
      emails: { value: 'dana@acme.test' },
    });
    assert.deepEqual(kept, {
      userName: 'dana',
      active: true,
      emails: [{ value: 'dana@acme.test' }],
    });
    refusedWith('invalidValue', () => resourceAttributes(userResource, { displayName: 'x' }));
    refusedWith('invalidValue', () => resourceAttributes(userResource, { userName: 7 }));
    refusedWith('invalidSyntax', () => resourceAttributes(userResource, ['userName']));
  });

  test('attributes keeps what it names (and the id), excludedAttributes drops what it names', () => {
    const only = project(dana, {
      attributes: attributeList('userName,name.givenName', [userResource]),
    });
    assert.deepEqual(only, { id: 'a1', userName: 'Dana@Acme.test', name: { givenName: 'Dana' } });
    const without = project(dana, { excludedAttributes: ['emails', 'id'] });
    assert.equal(without.emails, undefined);
    assert.equal(without.id, 'a1', 'the id is always returned');
  });

  test('a page starts at 1 and holds at most count, never more than the most one list answers', () => {
    const many = Array.from({ length: 250 }, (_, i) => ({ id: String(i), userName: `u${i}` }));
    const page = (startIndex?: number, count?: number) =>
      listResponse(many, { page: { startIndex, count }, projection: {} });
    assert.equal(page().itemsPerPage, maxResults);
    assert.equal(page().totalResults, 250);
    assert.deepEqual(
      page(249, 10).Resources.map((r) => r.id),
      ['248', '249'],
    );
    assert.equal(page(0, 1).startIndex, 1);
    assert.equal(page(1, -5).itemsPerPage, 0);
    assert.equal(page(1, 0).totalResults, 250);
  });
});
