import assert from 'node:assert/strict';
import { test } from 'node:test';
import { runSourceSchema, trustTierOf } from '../../src/domain/trust-tier.js';

const cases: [string, unknown, 'trusted' | 'read_only'][] = [
  ['a manual run', { kind: 'manual' }, 'trusted'],
  ['a scheduled run', { kind: 'schedule', repository: 'acme/app' }, 'trusted'],
  [
    'a pull request from a branch of the same repository',
    {
      kind: 'pull_request',
      pull_request: { base_repo: 'acme/app', head_repo: 'acme/app', number: 1, sender: 'ana' },
    },
    'trusted',
  ],
  [
    'the same repository in other letter case',
    { kind: 'pull_request', pull_request: { base_repo: 'Acme/App', head_repo: 'acme/app' } },
    'trusted',
  ],
  [
    'a pull request from a fork',
    {
      kind: 'pull_request',
      pull_request: {
        base_repo: 'acme/app',
        head_repo: 'mallory/app',
        number: 2,
        sender: 'mallory',
      },
    },
    'read_only',
  ],
  [
    'a pull request from a deleted fork (head null)',
    { kind: 'pull_request', pull_request: { base_repo: 'acme/app', head_repo: null } },
    'read_only',
  ],
  [
    'a pull request whose head is missing',
    { kind: 'pull_request', pull_request: { base_repo: 'acme/app' } },
    'read_only',
  ],
  [
    'a pull request whose head is hidden (empty)',
    { kind: 'pull_request', pull_request: { base_repo: 'acme/app', head_repo: ' ' } },
    'read_only',
  ],
  ['a pull request without details', { kind: 'pull_request' }, 'read_only'],
  [
    'a pull request whose base is unknown',
    { kind: 'pull_request', pull_request: { head_repo: 'acme/app' } },
    'read_only',
  ],
  [
    'a pull request with the base from the repository field',
    { kind: 'pull_request', repository: 'acme/app', pull_request: { head_repo: 'acme/app' } },
    'trusted',
  ],
];

for (const [name, source, tier] of cases) {
  test(`trust tier: ${name} is ${tier}`, () => {
    assert.equal(trustTierOf(runSourceSchema.parse(source)), tier);
  });
}
