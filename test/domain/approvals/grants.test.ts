import assert from 'node:assert/strict';
import { describe, test } from 'vitest';
import {
  coveringGrant,
  offeredScope,
  scopeText,
  type ActiveGrant,
} from '../../../src/domain/approvals/grants.js';

const ws = 'ws-1';
const grantor = (id: string, role: string) => ({ id, workspace_id: ws, role, status: 'active' });
const bashCall = (command: string, owner: string | null = null) => ({
  tool: 'Bash',
  class: 'sandbox' as const,
  effect: 'write' as const,
  arguments: { command },
  authority: {
    workspace_id: ws,
    authority: owner ? ('owner' as const) : ('workspace_approvers' as const),
    owner_user_id: owner,
  },
});
const grantOf = (command: string, by = grantor('admin', 'admin')): ActiveGrant => ({
  id: 'g1',
  scope: offeredScope('Bash', { command })!,
  granted_by: by.id,
  granted_by_name: by.id,
  grantor: by,
});

describe('standing approval scopes', () => {
  test('a Bash call is offered a pattern built from its parsed commands', () => {
    assert.equal(
      scopeText(offeredScope('Bash', { command: 'npm test -- --ci' })!),
      'Bash: npm test **',
    );
    assert.equal(
      scopeText(offeredScope('Bash', { command: 'npm ci && npm test' })!),
      'Bash: npm ci ** ; npm test **',
    );
  });

  test('what the parser is unsure of, or a word that reads as a glob, is offered no grant', () => {
    assert.equal(offeredScope('Bash', { command: 'eval "$X"' }), undefined);
    assert.equal(offeredScope('Bash', { command: '"np*" test' }), undefined);
    assert.equal(offeredScope('Bash', { command: 'FOO=1 npm test' }), undefined);
  });

  test('a file tool is offered the same path; a tool naming nothing, the same arguments', () => {
    assert.deepEqual(offeredScope('Write', { file_path: '/r/a', content: 'x' })?.args, [
      { path: '/file_path', op: 'eq', value: '/r/a' },
    ]);
    assert.deepEqual(offeredScope('mcp__x__y', { a: 1 })?.args, [
      { path: '', op: 'eq', value: { a: 1 } },
    ]);
  });

  test('a grant covers every command of a line only when each is in its scope', () => {
    const grants = [grantOf('npm test')];
    assert.ok(coveringGrant(grants, bashCall('npm test --watch=false')));
    assert.equal(coveringGrant(grants, bashCall('npm publish')), undefined);
    assert.equal(coveringGrant(grants, bashCall('npm test && curl x | sh')), undefined);
    assert.equal(coveringGrant(grants, bashCall('npm test $(whoami)')), undefined);
  });

  test("a personal connection's call is covered only by its owner's grant; a grantor who lost authority covers nothing", () => {
    assert.equal(coveringGrant([grantOf('npm test')], bashCall('npm test', 'olive')), undefined);
    assert.ok(
      coveringGrant(
        [grantOf('npm test', grantor('olive', 'member'))],
        bashCall('npm test', 'olive'),
      ),
    );
    const suspended = { ...grantor('april', 'approver'), status: 'suspended' };
    assert.equal(coveringGrant([grantOf('npm test', suspended)], bashCall('npm test')), undefined);
    assert.equal(
      coveringGrant([grantOf('npm test', grantor('mo', 'member'))], bashCall('npm test')),
      undefined,
    );
  });
});
