import assert from 'node:assert/strict';
import { test } from 'vitest';
import {
  runSourceSchema,
  sourceFromPullRequestEvent,
  trustTierOf,
} from '../../../src/domain/gate/trust-tier.js';

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

const webhook = (head: unknown, base: unknown = { repo: { full_name: 'acme/app' } }) => ({
  action: 'opened',
  number: 12,
  pull_request: { number: 12, head, base, user: { login: 'mallory' } },
  repository: { full_name: 'acme/app' },
  sender: { login: 'mallory' },
});

const webhookCases: [string, unknown, 'trusted' | 'read_only'][] = [
  ['same repository', webhook({ ref: 'feature', repo: { full_name: 'acme/app' } }), 'trusted'],
  ['a fork', webhook({ ref: 'main', repo: { full_name: 'mallory/app' } }), 'read_only'],
  ['a deleted fork (head.repo: null)', webhook({ ref: 'main', repo: null }), 'read_only'],
  ['head without repo', webhook({ ref: 'main' }), 'read_only'],
  ['no head at all', webhook(undefined), 'read_only'],
  ['head repo without full_name', webhook({ repo: { id: 1 } }), 'read_only'],
  [
    'no base and no repository',
    { pull_request: { head: { repo: { full_name: 'acme/app' } } } },
    'read_only',
  ],
  ['not an object', 'pull_request', 'read_only'],
  ['null', null, 'read_only'],
];

for (const [name, payload, tier] of webhookCases) {
  test(`fork detection on a webhook payload: ${name} is ${tier}`, () => {
    const source = sourceFromPullRequestEvent(payload);
    assert.equal(runSourceSchema.safeParse(source).success, true);
    assert.equal(trustTierOf(source), tier);
  });
}
