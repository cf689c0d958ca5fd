import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  checkBrokerBinding,
  type BoundConnection,
} from '../../../src/domain/gate/broker-binding.js';

const binding = { connection_id: 'c1', auth_generation: 2, owner_user_id: null };
const org: BoundConnection = { status: 'active', auth_generation: 2, owner_user_id: null };
const personal: BoundConnection = { ...org, owner_user_id: 'u1' };
const unbound = /no longer bound as the run froze it; nothing was executed/;

const cases: [
  string,
  typeof binding | null,
  BoundConnection | undefined,
  { status: string } | undefined,
  RegExp | null,
][] = [
  ['an org connection as frozen', binding, org, undefined, null],
  ['a personal connection whose owner is active', binding, personal, { status: 'active' }, null],
  ['no binding at all', null, org, undefined, unbound],
  ['the connection gone', binding, undefined, undefined, unbound],
  ['the connection revoked', binding, { ...org, status: 'revoked' }, undefined, unbound],
  [
    'reauthorized since the run froze it',
    binding,
    { ...org, auth_generation: 3 },
    undefined,
    unbound,
  ],
  [
    'the owner suspended',
    binding,
    personal,
    { status: 'suspended' },
    /owner is not an active member/,
  ],
  ['the owner no longer a member', binding, personal, undefined, /owner is not an active member/],
];

for (const [name, frozen, connection, owner, refusal] of cases) {
  test(`before a credential is opened: ${name} ${refusal ? 'refuses' : 'holds'}`, () => {
    const check = checkBrokerBinding(frozen, connection, owner);
    if (refusal === null) assert.deepEqual(check, { holds: true, connection });
    else {
      assert.equal(check.holds, false);
      assert.match(check.reason, refusal);
    }
  });
}
