import assert from 'node:assert/strict';
import { describe, test } from 'vitest';
import { offeredScope, type ScopeKind } from '../../../src/domain/approvals/grant-scopes.js';
import {
  coveringGrant,
  type ActiveGrant,
  type AskingCall,
} from '../../../src/domain/approvals/grants.js';
import { lengthText } from '../../../src/domain/approvals/grant-lengths.js';

const ws = 'ws-1';
const now = new Date('2026-01-01T12:00:00Z');
const asked = { rule_id: 'ask-bash', policy_version: 3 };
const grantor = (id: string, role: string) => ({ id, workspace_id: ws, role, status: 'active' });
const callOf = (
  tool: string,
  args: Record<string, unknown>,
  more: Partial<AskingCall> = {},
  owner: string | null = null,
): AskingCall => ({
  tool,
  arguments: args,
  asked,
  at: now,
  authority: {
    workspace_id: ws,
    authority: owner ? 'owner' : 'workspace_approvers',
    owner_user_id: owner,
  },
  ...more,
});
const bashCall = (command: string, owner: string | null = null) =>
  callOf('Bash', { command }, {}, owner);
const grantFor = (
  tool: string,
  args: Record<string, unknown>,
  more: Partial<ActiveGrant> = {},
  kind: ScopeKind = 'exact',
): ActiveGrant => ({
  id: 'g1',
  scope: offeredScope(tool, args, kind),
  asked,
  for_s: null,
  expires_at: null,
  granted_by: 'admin',
  granted_by_name: 'admin',
  grantor: grantor('admin', 'admin'),
  ...more,
});
const grantOf = (command: string, more: Partial<ActiveGrant> = {}) =>
  grantFor('Bash', { command }, more);

describe('which grant covers a call', () => {
  test('a grant covers the same call only: the same tool, the same arguments', () => {
    assert.ok(coveringGrant([grantOf('npm test')], bashCall('npm test')));
    assert.equal(coveringGrant([grantOf('npm test')], bashCall('npm test -- --ci')), undefined);
    const write = grantFor('Write', { file_path: '/r/a', content: 'ok' }, {}, 'any_content');
    assert.ok(coveringGrant([write], callOf('Write', { file_path: '/r/a', content: 'other' })));
    for (const tool of ['Edit', 'mcp__fs__delete_file'])
      assert.equal(
        coveringGrant([write], callOf(tool, { file_path: '/r/a' })),
        undefined,
        `a Write grant does not cover ${tool}`,
      );
  });

  test('a call the gate is not sure a grant covers is not covered: $NPM test, FOO=1 npm test', () => {
    const grant = grantOf('npm test');
    for (const line of [
      '$NPM test',
      'FOO=1 npm test',
      'npm test -- $X',
      'npm test -- "a b"',
      'npm test -- --reporter=dot',
    ])
      assert.equal(coveringGrant([grant], bashCall(line)), undefined, line);
  });

  test('a grant answers only the rule and policy version that asked when it was given', () => {
    const grant = grantOf('npm test');
    const byDefault = { rule_id: null, policy_version: 3 };
    assert.equal(
      coveringGrant([grantOf('npm test', { asked: byDefault })], bashCall('npm test')),
      undefined,
      "a grant earned under the policy's default does not answer a specific rule",
    );
    assert.equal(
      coveringGrant([grant], callOf('Bash', { command: 'npm test' }, { asked: byDefault })),
      undefined,
    );
    assert.equal(
      coveringGrant(
        [grant],
        callOf('Bash', { command: 'npm test' }, { asked: { ...asked, policy_version: 4 } }),
      ),
      undefined,
    );
  });

  test('a timed grant covers until its end and nothing from then', () => {
    const grant = grantOf('npm test', { for_s: 900, expires_at: new Date(now.getTime() + 1000) });
    assert.ok(coveringGrant([grant], bashCall('npm test')));
    const later = callOf('Bash', { command: 'npm test' }, { at: new Date(now.getTime() + 1000) });
    assert.equal(coveringGrant([grant], later), undefined);
  });

  test('a scope of an older shape covers nothing', () => {
    const old = grantOf('npm test', {
      scope: { tool: 'Bash', args: [{ path: '/command', op: 'command', value: [['npm', '**']] }] },
    });
    assert.equal(coveringGrant([old], bashCall('npm test')), undefined);
  });

  test("a personal connection's call is covered only by its owner's grant; a grantor who lost authority covers nothing", () => {
    assert.equal(coveringGrant([grantOf('npm test')], bashCall('npm test', 'olive')), undefined);
    const olive = grantor('olive', 'member');
    assert.ok(
      coveringGrant(
        [grantOf('npm test', { granted_by: 'olive', grantor: olive })],
        bashCall('npm test', 'olive'),
      ),
    );
    const suspended = { ...grantor('april', 'approver'), status: 'suspended' };
    assert.equal(
      coveringGrant([grantOf('npm test', { grantor: suspended })], bashCall('npm test')),
      undefined,
    );
    assert.equal(
      coveringGrant(
        [grantOf('npm test', { grantor: grantor('mo', 'member') })],
        bashCall('npm test'),
      ),
      undefined,
    );
  });

  test("a grant's length reads as the approver chose it", () => {
    assert.equal(lengthText(undefined), 'no: only this call');
    assert.equal(lengthText(null), 'for the rest of this run');
    assert.equal(lengthText(900), 'for 15 minutes');
    assert.equal(lengthText(3600), 'for 1 hour');
    assert.equal(lengthText(28_800), 'for 8 hours');
    assert.equal(lengthText(90), 'for 90 seconds');
  });
});
