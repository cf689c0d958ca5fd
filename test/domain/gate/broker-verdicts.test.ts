import assert from 'node:assert/strict';
import { describe, test } from 'vitest';
import {
  brokerVerdict,
  liveDefinitionVerdict,
  type BrokeredConnection,
} from '../../../src/domain/gate/broker-verdicts.js';
import type { CalledTool } from '../../../src/domain/gate/stage-verdicts.js';
import { toolDigest, type FrozenTool } from '../../../src/domain/tools/tools.js';

const entry = {
  name: 'mcp__notes__search',
  description: 'Searches.',
  input_schema: { type: 'object' },
  effect: 'read' as const,
};
const tool: FrozenTool = {
  ...entry,
  digest: toolDigest(entry),
  class: 'brokered',
  origin: { kind: 'connection', connection_id: 'c1' },
  binding: { connection_id: 'c1', auth_generation: 2, owner_user_id: null },
  callable: true,
};
const called: CalledTool = { name: tool.name, frozen: tool };
const photograph = [{ name: tool.name, digest: tool.digest }];
const org: BrokeredConnection = {
  status: 'active',
  auth_generation: 2,
  owner_user_id: null,
  tools: photograph,
};
const personal: BrokeredConnection = { ...org, owner_user_id: 'u1' };
const changed = [{ name: tool.name, digest: 'sha256:other' }];

describe('right before the broker opens a credential', () => {
  const cases: [
    string,
    CalledTool,
    BrokeredConnection | undefined,
    { status: string } | undefined,
    [string, RegExp] | null,
  ][] = [
    ['an org connection as frozen', called, org, undefined, null],
    ['a personal connection whose owner is active', called, personal, { status: 'active' }, null],
    [
      'no binding at all',
      { ...called, frozen: { ...tool, binding: null } },
      org,
      undefined,
      ['binding', /no binding/],
    ],
    ['the connection gone', called, undefined, undefined, ['binding', /is gone/]],
    [
      'the connection revoked',
      called,
      { ...org, status: 'revoked' },
      undefined,
      ['binding', /revoked/],
    ],
    [
      'reauthorized since the run froze it',
      called,
      { ...org, auth_generation: 3 },
      undefined,
      ['binding', /stale binding/],
    ],
    [
      'the photograph refreshed with the tool changed',
      called,
      { ...org, tools: changed },
      undefined,
      ['capability', /drifted/],
    ],
    [
      'the photograph refreshed with the tool withdrawn',
      called,
      { ...org, tools: [] },
      undefined,
      ['capability', /withdrawn/],
    ],
    [
      'a tool the run never froze',
      { name: 'x', frozen: undefined },
      org,
      undefined,
      ['capability', /not in the run's frozen tool set/],
    ],
    [
      'the owner suspended',
      called,
      personal,
      { status: 'suspended' },
      ['binding', /owner is not an active member/],
    ],
    [
      'the owner no longer a member',
      called,
      personal,
      undefined,
      ['binding', /owner is not an active member/],
    ],
  ];
  for (const [name, call, connection, owner, refusal] of cases) {
    test(`${name} ${refusal ? `refuses (${refusal[0]})` : 'holds'}`, () => {
      const verdict = brokerVerdict(call, connection, owner);
      if (refusal === null) {
        assert.deepEqual(verdict, { outcome: 'pass', connection });
        return;
      }
      assert.equal(verdict.outcome, 'deny');
      assert.equal(verdict.source, refusal[0]);
      assert.match(verdict.reason, refusal[1]);
      assert.match(verdict.reason, /checked at the call; nothing was executed\)$/);
    });
  }
});

test('a run revoked after its call was allowed refuses at the call (binding), whatever the connection', () => {
  const verdict = brokerVerdict(called, org, undefined, true);
  assert.equal(verdict.outcome, 'deny');
  assert.equal(verdict.source, 'binding');
  assert.match(
    verdict.reason,
    /^the run was revoked: its bindings refuse \(checked at the call; nothing was executed\)$/,
  );
});

describe("the server's live definition, just before the call", () => {
  test('the frozen digest listed live: no refusal', () => {
    assert.equal(liveDefinitionVerdict(called, org, photograph), undefined);
  });
  test('a changed definition is a capability deny, whatever the stored photograph says', () => {
    const denial = liveDefinitionVerdict(called, org, changed);
    assert.ok(denial);
    assert.equal(denial.source, 'capability');
    assert.match(denial.reason, /drifted since the run froze it/);
    assert.match(denial.reason, /tools\/list just before the call; nothing was executed/);
  });
  test('a withdrawn tool is a capability deny', () => {
    const denial = liveDefinitionVerdict(called, org, [{ name: 'mcp__notes__other', digest: 'x' }]);
    assert.ok(denial);
    assert.equal(denial.source, 'capability');
    assert.match(denial.reason, /withdrawn/);
  });
});
