import assert from 'node:assert/strict';
import { describe, test } from 'vitest';
import {
  accessTokenDue,
  clientIssuerRefusal,
  mayAuthorize,
  mayDisconnect,
  responseIssuerRefusal,
  type CustodyConnection,
  type CustodyMember,
} from '../../../src/domain/tools/connection-custody.js';

const ws = 'ws-1';
const member = (id: string, role: CustodyMember['role'], more: Partial<CustodyMember> = {}) => ({
  id,
  workspace_id: ws,
  role,
  status: 'active' as const,
  ...more,
});
const owner = member('olive', 'member');
const admin = member('ana', 'admin');
const approver = member('otto', 'approver');
const personal: CustodyConnection = { workspace_id: ws, kind: 'personal', owner_user_id: 'olive' };
const org: CustodyConnection = { workspace_id: ws, kind: 'org', owner_user_id: null };

describe("a connection's custody", () => {
  const cases: [string, CustodyConnection, CustodyMember, boolean, boolean][] = [
    ['the owner, their personal connection', personal, owner, true, true],
    ['an admin, a personal connection: revokes, never authorizes', personal, admin, false, true],
    ['an approver, a personal connection', personal, approver, false, false],
    [
      'the owner, suspended',
      personal,
      member('olive', 'member', { status: 'suspended' }),
      false,
      false,
    ],
    [
      'the owner id in another workspace',
      personal,
      member('olive', 'member', { workspace_id: 'ws-2' }),
      false,
      false,
    ],
    ['an admin, an org connection', org, admin, true, true],
    ['a member, an org connection', org, owner, false, false],
    [
      'an admin of another workspace, an org connection',
      org,
      member('x', 'admin', { workspace_id: 'ws-2' }),
      false,
      false,
    ],
  ];
  for (const [who, connection, m, authorizes, disconnects] of cases) {
    test(`${who}: authorizes ${authorizes}, disconnects ${disconnects}`, () => {
      assert.equal(mayAuthorize(connection, m), authorizes);
      assert.equal(mayDisconnect(connection, m), disconnects);
    });
  }
});

describe('an access token is refreshed before it expires', () => {
  const now = 1_000_000;
  const cases: [string, { expires_at?: number; lifetime_s?: number }, boolean][] = [
    [
      'an hour-long token with 31 s left is used',
      { expires_at: now + 31_000, lifetime_s: 3600 },
      false,
    ],
    [
      'an hour-long token with 29 s left is refreshed',
      { expires_at: now + 29_000, lifetime_s: 3600 },
      true,
    ],
    ['an expired token is refreshed', { expires_at: now - 1, lifetime_s: 3600 }, true],
    [
      'a 4 s token with 2.5 s left is used (half its life)',
      { expires_at: now + 2_500, lifetime_s: 4 },
      false,
    ],
    ['a 4 s token with 1.5 s left is refreshed', { expires_at: now + 1_500, lifetime_s: 4 }, true],
    ['a token of unknown expiry is used until refused', {}, false],
  ];
  for (const [what, token, due] of cases) {
    test(what, () => {
      assert.equal(accessTokenDue(token, now), due);
    });
  }
});

describe('the mix-up defence (RFC 9207)', () => {
  const honest = 'https://as.example';
  test("an answer's issuer: required when the server says it sends it, and always its own", () => {
    const table: [boolean, string | undefined, RegExp | undefined][] = [
      [true, honest, undefined],
      [true, undefined, /carries no issuer/],
      [true, 'https://other.example', /comes from https:\/\/other\.example, not from/],
      [false, undefined, undefined],
      [false, honest, undefined],
      [false, 'https://other.example', /comes from https:\/\/other\.example/],
      // Compared as strings (RFC 9207 section 2.4): no normalising a trailing slash away.
      [true, `${honest}/`, /not from/],
    ];
    for (const [sendsIss, iss, refused] of table) {
      const reason = responseIssuerRefusal({ issuer: honest, sendsIss }, iss);
      if (refused) assert.match(reason ?? '', refused, `${sendsIss} ${iss}`);
      else assert.equal(reason, undefined, `${sendsIss} ${iss}`);
    }
  });

  test('a client belongs to the first issuer it was used with', () => {
    assert.equal(clientIssuerRefusal(undefined, honest), undefined);
    assert.equal(clientIssuerRefusal(honest, honest), undefined);
    assert.match(clientIssuerRefusal(honest, 'https://other.example') ?? '', /belongs to/);
  });
});
