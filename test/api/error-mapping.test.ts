import assert from 'node:assert/strict';
import { test } from 'vitest';
import { NamespaceNotFoundError, ServiceError } from '@temporalio/client';
import { DecisionNotRecordedError } from '../../src/application/decide-approval.js';
import { ReauthorizationNeededError } from '../../src/application/oauth-connections.js';
import { OAuthFlowError } from '../../src/broker/oauth-client.js';
import { ConfigError } from '../../src/config.js';
import {
  BudgetExhaustedError,
  ConflictError,
  ForbiddenError,
  GateStillEvaluatingError,
  InvalidInputError,
  NotFoundError,
  UnavailableError,
} from '../../src/domain/errors.js';
import { problemFor } from '../../src/api/error-mapping.js';
import { Problem } from '../../src/api/problem.js';
import { PhotographError } from '../../src/broker/photograph-error.js';

const withCode = (message: string, code: string) => Object.assign(new Error(message), { code });

const cases: [string, unknown, number, string?][] = [
  ['a problem already made', new Problem(418, 'teapot'), 418],
  ['something that does not exist', new NotFoundError('run r1'), 404],
  ['a caller without the right', new ForbiddenError('no'), 403],
  [
    'values that cannot be used',
    new InvalidInputError('bad', [{ path: 'tools', message: 'x' }]),
    400,
  ],
  ['a clash with the record', new ConflictError('taken', { final: 'allow' }), 409],
  [
    'a budget spent',
    new BudgetExhaustedError('spent', { request_id: 'r', booked_tokens: 9 }),
    402,
    'budget-exhausted',
  ],
  ['a dependency that did not answer', new UnavailableError('later'), 503],
  ['a decision rolled back', new DecisionNotRecordedError(new Error('db')), 503],
  [
    'an MCP server refusing the credential',
    new PhotographError('unauthorized', 'no'),
    502,
    'upstream-unauthorized',
  ],
  [
    'an MCP command that cannot run',
    new PhotographError('invalid_request', 'empty'),
    400,
    'upstream-invalid-request',
  ],
  ['the gate still evaluating', new GateStillEvaluatingError(), 503],
  ['a connection needing its owner', new ReauthorizationNeededError('reconnect'), 409],
  [
    'an authorization server failing',
    new OAuthFlowError('token endpoint answered 500'),
    502,
    'upstream-oauth',
  ],
  ['one of the family that no caller was meant to meet', new ConfigError('bad'), 500],
  ['an error outside the family, whatever its code', withCode('taken', 'conflict'), 500],
  ['PostgreSQL away', withCode('connect ECONNREFUSED', 'ECONNREFUSED'), 503],
  [
    'PostgreSQL away, its Unix socket gone',
    Object.assign(withCode('connect ENOENT /pg/.s.PGSQL.5432', 'ENOENT'), { syscall: 'connect' }),
    503,
  ],
  ['a file that is not there', withCode('open ENOENT /etc/gate.yaml', 'ENOENT'), 500],
  ['PostgreSQL restarted under a transaction', withCode('terminating connection', '57P01'), 503],
  ['PostgreSQL too slow for the statement timeout', withCode('canceling statement', '57014'), 503],
  ['PostgreSQL not answering a query in time', new Error('Query read timeout'), 503],
  [
    'PostgreSQL not answering a connection in time',
    new Error('Connection terminated due to connection timeout'),
    503,
  ],
  ['PostgreSQL not accepting on its socket', withCode('connect EAGAIN', 'EAGAIN'), 503],
  ['a query that is wrong', withCode('syntax error at or near', '42601'), 500],
  [
    'a deadlock still met after the transaction was tried again',
    withCode('deadlock detected', '40P01'),
    503,
  ],
  ['a serialization failure', withCode('could not serialize access', '40001'), 503],
  ['Temporal away', new ServiceError('unavailable'), 503],
  // A server that lost its namespace (seen under heavy load) or was pointed at the wrong one.
  ['Temporal without its namespace', new NamespaceNotFoundError('default'), 503],
  [
    'a body too large',
    Object.assign(new Error('too large'), { statusCode: 413, code: 'FST_ERR_CTP_BODY_TOO_LARGE' }),
    413,
  ],
  ['a body that is not JSON', Object.assign(new Error('bad json'), { statusCode: 400 }), 400],
  ['anything nobody foresaw', new TypeError('undefined is not a function'), 500],
];

for (const [what, err, status, type] of cases) {
  test(`one mapping for every error: ${what} is ${status}`, () => {
    const problem = problemFor(err);
    assert.equal(problem.status, status);
    if (type) assert.match(problem.type, new RegExp(`/${type}$`));
  });
}

test('field errors name their place in the body, and details stay beside the message', () => {
  const invalid = problemFor(
    new InvalidInputError('bad', [{ path: 'tools.bundles[0]', message: 'x' }]),
  );
  assert.deepEqual(invalid.body().errors, [{ path: 'body.tools.bundles[0]', message: 'x' }]);
  const conflict = problemFor(new ConflictError('taken', { outcome: 'already_decided' }));
  assert.equal((conflict.body() as Record<string, unknown>).outcome, 'already_decided');
  assert.equal(problemFor(new TypeError('secret detail')).detail, 'an internal error occurred');
});
