import assert from 'node:assert/strict';
import { describe, test } from 'vitest';
import {
  decisionFromApproval,
  mayDecide,
  offeredTo,
  type Authority,
} from '../../../src/domain/gate/approval.js';

const ws = 'workspace-1';
const member = (
  role: string,
  overrides: Partial<{ id: string; workspace_id: string; status: string }> = {},
) => ({
  id: 'u-member',
  workspace_id: ws,
  role,
  status: 'active',
  ...overrides,
});
const approval = (authority: Authority) => ({
  authority,
  owner_user_id: authority === 'owner' ? 'u-owner' : null,
  workspace_id: ws,
});

describe('who may decide an approval', () => {
  const cases: [string, Authority, ReturnType<typeof member>, boolean][] = [
    ['an approver, on a workspace approval', 'workspace_approvers', member('approver'), true],
    ['an admin, on a workspace approval', 'workspace_approvers', member('admin'), true],
    ['a plain member, on a workspace approval', 'workspace_approvers', member('member'), false],
    [
      'a suspended approver',
      'workspace_approvers',
      member('approver', { status: 'suspended' }),
      false,
    ],
    [
      'an admin of another workspace',
      'workspace_approvers',
      member('admin', { workspace_id: 'other' }),
      false,
    ],
    ['the owner, on their personal connection', 'owner', member('member', { id: 'u-owner' }), true],
    ['an admin, on a personal connection', 'owner', member('admin'), false],
    [
      'the owner, suspended',
      'owner',
      member('member', { id: 'u-owner', status: 'suspended' }),
      false,
    ],
  ];
  for (const [who, authority, decider, may] of cases) {
    test(`${who}: ${may ? 'may' : 'may not'}`, () => {
      assert.equal(mayDecide(approval(authority), decider), may);
    });
  }

  test('only a pending approval is offered, and only to who may decide it', () => {
    const pending = { ...approval('workspace_approvers'), status: 'pending' as const };
    assert.equal(offeredTo(pending, member('approver')), true);
    assert.equal(offeredTo({ ...pending, status: 'approved' }, member('approver')), false);
    assert.equal(offeredTo(pending, member('member')), false);
  });
});

describe('the final answer of a settled approval', () => {
  const settled = {
    rule_id: 'ask',
    decided_by: 'u1',
    decided_by_name: 'ana',
    reason: 'ship it',
  };
  test('approved: allow, naming the approver and their reason', () => {
    const decision = decisionFromApproval({ ...settled, status: 'approved', decision: 'allow' });
    assert.deepEqual(decision.answer, {
      status: 'decided',
      decision: 'allow',
      reason: 'approved by ana: ship it',
      rule_id: 'ask',
    });
    assert.equal(decision.stage, 'approval');
    assert.equal(decision.decided_by, 'u1');
  });

  test('denied: deny with source=approval', () => {
    const decision = decisionFromApproval({
      ...settled,
      status: 'denied',
      decision: 'deny',
      reason: null,
    });
    assert.equal(decision.answer.source, 'approval');
    assert.equal(decision.answer.reason, 'denied by ana');
  });

  test("expired: the policy's on_timeout, decided by nobody", () => {
    const decision = decisionFromApproval({
      ...settled,
      status: 'expired',
      decision: 'deny',
      decided_by: null,
      decided_by_name: null,
      reason: null,
    });
    assert.equal(decision.answer.reason, "the approval expired; the policy's on_timeout is deny");
    assert.equal(decision.decided_by, undefined);
  });
});
