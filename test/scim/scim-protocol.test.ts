/**
 * The SCIM endpoint over HTTP as identity providers use it: filters on the attributes they
 * look people up by, pages, the SCIM error shape for every bad request (never a 500), and the
 * workspace's token, rotated and revoked by the operator.
 */
import assert from 'node:assert/strict';
import { createHash, randomUUID } from 'node:crypto';
import { describe, test } from 'vitest';
import { useHarness } from '../support/harness.js';
import { createRun, expectStatus, toolCall } from '../support/seed.js';
import { recordSignIn } from '../../src/store/people.js';

const h = useHarness();
const errorSchema = 'urn:ietf:params:scim:api:messages:2.0:Error';

async function mint(): Promise<string> {
  const minted = await expectStatus(
    h.api.call('POST', `/v1/workspaces/${h.seed.workspace}/scim-token`, {
      token: h.api.operatorKey,
    }),
    201,
  );
  return minted.scim_token as string;
}

async function scim(
  token: string,
  method: string,
  path: string,
  body?: string,
  contentType = 'application/scim+json',
) {
  const response = await fetch(`${h.api.url}/scim/v2${path}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body !== undefined && { 'content-type': contentType }),
    },
    ...(body !== undefined && { body }),
  });
  const text = await response.text();
  return {
    status: response.status,
    type: response.headers.get('content-type') ?? '',
    body: text ? JSON.parse(text) : undefined,
  };
}

/** A new group that the seeded workspace maps to the approver role, named from `prefix`. */
async function approverGroup(prefix: string): Promise<string> {
  const group = `${prefix}-${randomUUID()}`;
  await expectStatus(
    h.api.call('PUT', `/v1/workspaces/${h.seed.workspace}/identity`, {
      token: h.api.operatorKey,
      body: { roles: { [group]: 'approver' } },
    }),
    200,
  );
  return group;
}

/** A User provisioned with these attributes: its resource's id, and the member made for it. */
async function provisionUser(token: string, attributes: Record<string, unknown>) {
  const created = await scim(
    token,
    'POST',
    '/Users',
    JSON.stringify({ schemas: ['urn:ietf:params:scim:schemas:core:2.0:User'], ...attributes }),
  );
  assert.equal(created.status, 201, JSON.stringify(created.body));
  const { rows } = await h.db.query<{ member_id: string }>(
    'select member_id from scim_resources where id = $1',
    [created.body.id],
  );
  return { id: created.body.id as string, memberId: rows[0]?.member_id };
}

describe('the SCIM endpoint', () => {
  test('Users are found by userName, externalId and displayName, a page at a time', async () => {
    const token = await mint();
    const ids: string[] = [];
    for (const n of [1, 2, 3]) {
      const created = await scim(
        token,
        'POST',
        '/Users',
        JSON.stringify({
          schemas: ['urn:ietf:params:scim:schemas:core:2.0:User'],
          userName: `person${n}@acme.test`,
          externalId: `ext-${n}`,
          displayName: `Person ${n}`,
        }),
      );
      assert.equal(created.status, 201, JSON.stringify(created.body));
      assert.match(created.type, /^application\/scim\+json/);
      ids.push(created.body.id as string);
    }
    const search = async (query: string) =>
      (await scim(token, 'GET', `/Users?${query}`)).body as {
        totalResults: number;
        itemsPerPage: number;
        Resources: { id: string }[];
      };
    const one = (filter: string) => search(`filter=${encodeURIComponent(filter)}`);
    assert.deepEqual(
      (await one('userName eq "PERSON2@acme.test"')).Resources.map((r) => r.id),
      [ids[1]],
    );
    assert.deepEqual(
      (await one('externalId eq "ext-3"')).Resources.map((r) => r.id),
      [ids[2]],
    );
    assert.deepEqual(
      (await one('displayName eq "Person 1"')).Resources.map((r) => r.id),
      [ids[0]],
    );
    assert.equal((await one('userName eq "nobody@acme.test"')).totalResults, 0);
    const page = await search('startIndex=2&count=1');
    assert.equal(page.totalResults, 3);
    assert.deepEqual(
      page.Resources.map((r) => r.id),
      [ids[1]],
    );
  });

  test('every bad request is a SCIM error naming what was wrong, never a server error', async () => {
    const token = await mint();
    const user = JSON.stringify({ schemas: [], userName: 'twice@acme.test' });
    assert.equal((await scim(token, 'POST', '/Users', user)).status, 201);
    const cases: [string, string, string | undefined, number, string | undefined][] = [
      ['POST', '/Users', user, 409, 'uniqueness'],
      ['POST', '/Users', '{"userName": ', 400, 'invalidSyntax'],
      ['POST', '/Users', '[]', 400, 'invalidSyntax'],
      ['POST', '/Users', '{"userName": 5}', 400, 'invalidValue'],
      ['POST', '/Users', '{"displayName": "no userName"}', 400, 'invalidValue'],
      [
        'POST',
        '/Groups',
        '{"displayName": "g", "members": [{"value": "not-a-user"}]}',
        400,
        'invalidValue',
      ],
      ['GET', '/Users?filter=userName%20zz%20%22x%22', undefined, 400, 'invalidFilter'],
      ['GET', '/Users?count=many', undefined, 400, 'invalidValue'],
      ['GET', '/Users/not-a-uuid', undefined, 404, undefined],
      ['GET', '/Users/00000000-0000-4000-8000-000000000000', undefined, 404, undefined],
      [
        'PATCH',
        '/Users/00000000-0000-4000-8000-000000000000',
        '{"Operations":[{"op":"remove","path":"active"}]}',
        404,
        undefined,
      ],
      ['DELETE', '/Groups/00000000-0000-4000-8000-000000000000', undefined, 404, undefined],
      ['POST', '/ServiceProviderConfig', '{}', 405, undefined],
      ['GET', '/Nothing', undefined, 404, undefined],
    ];
    for (const [method, path, body, status, scimType] of cases) {
      const answer = await scim(token, method, path, body);
      const what = `${method} ${path} ${body ?? ''}: ${JSON.stringify(answer.body)}`;
      assert.equal(answer.status, status, what);
      assert.match(answer.type, /^application\/scim\+json/, what);
      assert.deepEqual(answer.body.schemas, [errorSchema], what);
      assert.equal(answer.body.status, String(status), what);
      assert.equal(answer.body.scimType, scimType, what);
      assert.ok(typeof answer.body.detail === 'string' && answer.body.detail.length > 0, what);
    }
    const wrongType = await scim(token, 'POST', '/Users', user, 'application/xml');
    assert.equal(wrongType.status, 415);
    assert.deepEqual(wrongType.body.schemas, [errorSchema]);
  });

  test("the workspace's token is the operator's to mint, rotate and revoke; no other credential provisions", async () => {
    const first = await mint();
    assert.equal((await scim(first, 'GET', '/Users')).status, 200);
    const second = await mint();
    const refused = await scim(first, 'GET', '/Users');
    assert.equal(refused.status, 401, 'a rotated token stops at once');
    assert.deepEqual(refused.body.schemas, [errorSchema]);
    for (const other of [h.api.operatorKey, h.seed.admin.token, 'fgi_guess']) {
      assert.equal((await scim(other, 'GET', '/Users')).status, 401);
    }
    const { rows } = await h.db.query<{ token_hash: Buffer }>(
      'select token_hash from scim_tokens where workspace_id = $1',
      [h.seed.workspace],
    );
    assert.deepEqual(rows[0]?.token_hash, createHash('sha256').update(second).digest(), 'a digest');
    const asAdmin = await h.api.call('POST', `/v1/workspaces/${h.seed.workspace}/scim-token`, {
      token: h.seed.admin.token,
    });
    assert.equal(asAdmin.status, 403);
    await expectStatus(
      h.api.call('DELETE', `/v1/workspaces/${h.seed.workspace}/scim-token`, {
        token: h.api.operatorKey,
      }),
      204,
    );
    assert.equal((await scim(second, 'GET', '/Users')).status, 401);
  });

  test('a User is never linked to a member who signed in with the same email unverified', async () => {
    const token = await mint();
    const group = await approverGroup('unverified');
    const email = `victim-${randomUUID()}@acme.test`;
    const subject = `squatter-${randomUUID()}`;
    const [signedIn] = await recordSignIn(h.db, {
      issuer: 'https://idp.acme.test',
      subject,
      name: 'Squatter',
      email,
      claims: { sub: subject, email, email_verified: false, groups: [group] },
    });
    assert.ok(signedIn, 'the sign-in made a member');
    const created = await scim(
      token,
      'POST',
      '/Users',
      JSON.stringify({
        schemas: ['urn:ietf:params:scim:schemas:core:2.0:User'],
        userName: email,
        emails: [{ value: email, primary: true }],
      }),
    );
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const { rows } = await h.db.query<{ member_id: string }>(
      'select member_id from scim_resources where id = $1',
      [created.body.id],
    );
    assert.notEqual(rows[0]?.member_id, signedIn.id, 'the User is not linked to the squatter');
    const { rows: people } = await h.db.query<{ email: string | null }>(
      'select email from people where subject = $1',
      [subject],
    );
    assert.equal(people[0]?.email, null, 'an unverified email is not kept');
  });

  test('where the deployment names a claim for externalId, a User is linked by email only when the provider says it verified it: a token that leaves `email_verified` out claims nobody', async () => {
    const token = await mint();
    const group = await approverGroup('unsaid');
    const email = `alice-${randomUUID()}@acme.test`;
    const created = await provisionUser(token, { userName: email });
    const linkedTo = async () => {
      const { rows } = await h.db.query<{ subject: string | null }>(
        `select p.subject from scim_resources r join members m on m.id = r.member_id
           left join people p on p.id = m.person_id where r.id = $1`,
        [created.id],
      );
      return rows[0]?.subject ?? null;
    };
    const signIn = (subject: string, claims: Record<string, unknown>) =>
      recordSignIn(h.db, {
        issuer: 'https://idp.acme.test',
        subject,
        name: subject,
        email,
        externalId: null,
        verifiedEmailOnly: true,
        claims: { sub: subject, email, groups: [group], ...claims },
      });

    const mallory = `mallory-${randomUUID()}`;
    await signIn(mallory, {});
    assert.equal(
      await linkedTo(),
      null,
      "an email the provider did not vouch for claims nobody's User",
    );
    const alice = `alice-${randomUUID()}`;
    await signIn(alice, { email_verified: true });
    assert.equal(await linkedTo(), alice, 'a verified email links its User');
  });

  test("a User is linked by the claim the deployment names (Entra's `oid`), whatever the token's subject and email say, before or after the person first signs in", async () => {
    const token = await mint();
    const group = await approverGroup('by-oid');
    const person = (objectId: string) => {
      const subject = `pairwise-${randomUUID()}`;
      return {
        issuer: 'https://idp.acme.test',
        subject,
        externalId: objectId,
        verifiedEmailOnly: true,
        name: 'Olga',
        email: `olga-${randomUUID()}@acme.test`,
        claims: { sub: subject, oid: objectId, groups: [group] },
      };
    };
    const provision = async (objectId: string) =>
      (await provisionUser(token, { userName: `olga-${objectId}@corp.test`, externalId: objectId }))
        .memberId;

    // Provisioned first, then signed in: the member made for the User is theirs.
    const first = `obj-${randomUUID()}`;
    const provisioned = await provision(first);
    await recordSignIn(h.db, person(first));
    const { rows: linked } = await h.db.query<{ external_id: string }>(
      'select p.external_id from members m join people p on p.id = m.person_id where m.id = $1',
      [provisioned],
    );
    assert.equal(linked[0]?.external_id, first, 'the User is linked by the named claim');

    // Signed in first, then provisioned: the User adopts the member the sign-in made.
    const second = `obj-${randomUUID()}`;
    const [member] = await recordSignIn(h.db, person(second));
    assert.ok(member, 'the sign-in made a member');
    assert.equal(await provision(second), member.id, 'the User adopts the member');

    // A token without the claim matches no externalId: not by its subject, which here is the
    // id of another person's User in the claim's own terms.
    const third = `obj-${randomUUID()}`;
    const someoneElses = await provision(third);
    await recordSignIn(h.db, {
      ...person(third),
      subject: third,
      externalId: null,
      claims: { sub: third, groups: [group] },
    });
    const { rows: unclaimed } = await h.db.query<{ person_id: string | null }>(
      'select person_id from members where id = $1',
      [someoneElses],
    );
    assert.equal(unclaimed[0]?.person_id, null, "a token without the claim claims nobody's User");
  });

  test('a provider writing ids in capitals, or leaving `active` out, takes away what it means to: a removed member loses the role, a deactivated User stays deactivated', async () => {
    const token = await mint();
    const group = await approverGroup('capitals');
    const user = async (name: string) => {
      const created = await scim(
        token,
        'POST',
        '/Users',
        JSON.stringify({ userName: `${name}-${randomUUID()}@acme.test`, active: true }),
      );
      assert.equal(created.status, 201, JSON.stringify(created.body));
      return created.body.id as string;
    };
    const standing = async (id: string) =>
      (
        await h.db.query<{ role: string; status: string }>(
          'select role, status from members where id = $1',
          [id],
        )
      ).rows[0];
    const [okta, entra] = [await user('okta'), await user('entra')];
    const created = await scim(
      token,
      'POST',
      '/Groups',
      JSON.stringify({
        displayName: group,
        members: [{ value: okta.toUpperCase() }, { value: entra }, { value: entra.toUpperCase() }],
      }),
    );
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const groupPath = `/Groups/${created.body.id as string}`;
    assert.deepEqual(
      (created.body.members as { value: string }[]).map((m) => m.value).sort(),
      [okta, entra].sort(),
      'each member once, by the id the gate gave it',
    );
    assert.deepEqual(await standing(okta), { role: 'approver', status: 'active' });
    assert.deepEqual(await standing(entra), { role: 'approver', status: 'active' });

    // Okta's way: a value filter; Entra's: the values to remove in the body. Both in capitals.
    const patch = (operation: object) =>
      scim(token, 'PATCH', groupPath, JSON.stringify({ Operations: [operation] }));
    assert.equal(
      (await patch({ op: 'remove', path: `members[value eq "${okta.toUpperCase()}"]` })).status,
      200,
    );
    assert.equal(
      (await patch({ op: 'Remove', path: 'members', value: [{ value: entra.toUpperCase() }] }))
        .status,
      200,
    );
    assert.equal((await standing(okta))?.status, 'suspended', 'the filter in capitals removed');
    assert.equal((await standing(entra))?.status, 'suspended', 'the values in capitals removed');
    assert.equal((await scim(token, 'GET', groupPath)).body.members, undefined);

    // Back in the group, then deactivated: a PUT without `active`, or a PATCH removing it,
    // does not bring the User back; only `active: true` does.
    assert.equal(
      (await patch({ op: 'add', path: 'members', value: [{ value: okta }] })).status,
      200,
    );
    const userPath = `/Users/${okta}`;
    const userName = (await scim(token, 'GET', userPath)).body.userName as string;
    const deactivate = await scim(
      token,
      'PATCH',
      userPath,
      JSON.stringify({ Operations: [{ op: 'replace', path: 'active', value: false }] }),
    );
    assert.equal(deactivate.status, 200, JSON.stringify(deactivate.body));
    assert.equal((await standing(okta))?.status, 'suspended');
    const put = await scim(token, 'PUT', userPath, JSON.stringify({ userName }));
    assert.equal(put.status, 200, JSON.stringify(put.body));
    assert.equal(put.body.active, false, 'the PUT without `active` keeps it false');
    const removed = await scim(
      token,
      'PATCH',
      userPath,
      JSON.stringify({ Operations: [{ op: 'remove', path: 'active' }] }),
    );
    assert.equal(removed.status, 200, JSON.stringify(removed.body));
    assert.equal((await standing(okta))?.status, 'suspended', 'still deactivated');
    const back = await scim(token, 'PUT', userPath, JSON.stringify({ userName, active: true }));
    assert.equal(back.status, 200, JSON.stringify(back.body));
    assert.deepEqual(await standing(okta), { role: 'approver', status: 'active' });
  });

  test("a run acts on its invoker's standing: refused while a group change leaves them without a role and back with it; ended for good when the provider deactivates them", async () => {
    const token = await mint();
    const group = await approverGroup('standing');
    const user = await scim(
      token,
      'POST',
      '/Users',
      JSON.stringify({ userName: `invoker-${randomUUID()}@acme.test`, active: true }),
    );
    const id = user.body.id as string;
    const created = await scim(
      token,
      'POST',
      '/Groups',
      JSON.stringify({ displayName: group, members: [{ value: id }] }),
    );
    const groupPath = `/Groups/${created.body.id as string}`;
    const run = await createRun(h.api, h.seed, { invoked_by: id });
    const read = (n: number) =>
      toolCall(h.api, run, `r${n}`, { tool: 'Read', arguments: { file_path: '/tmp/x' } });
    assert.equal((await read(1)).status, 200);
    const members = (value: { value: string }[]) =>
      scim(
        token,
        'PATCH',
        groupPath,
        JSON.stringify({ Operations: [{ op: 'replace', path: 'members', value }] }),
      );
    assert.equal((await members([])).status, 200);
    assert.equal((await read(2)).status, 401, 'no role, no run');
    assert.equal((await members([{ value: id }])).status, 200);
    assert.equal((await read(3)).status, 200, 'a group change is undone by the next');
    const deactivated = await scim(
      token,
      'PATCH',
      `/Users/${id}`,
      JSON.stringify({ Operations: [{ op: 'replace', path: 'active', value: false }] }),
    );
    assert.equal(deactivated.status, 200);
    assert.equal((await read(4)).status, 401);
    const back = await scim(
      token,
      'PATCH',
      `/Users/${id}`,
      JSON.stringify({ Operations: [{ op: 'replace', path: 'active', value: true }] }),
    );
    assert.equal(back.status, 200);
    assert.equal((await read(5)).status, 401, 'a deactivation ended the run for good');
  });
});
