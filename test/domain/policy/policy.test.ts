import assert from 'node:assert/strict';
import { describe, test } from 'vitest';
import { applyAutonomy } from '../../../src/domain/gate/autonomy.js';
import { evaluatePolicy, type Rule } from '../../../src/domain/policy/policy.js';
import { policyWithRules } from './support.js';

const call = (
  tool: string,
  args: unknown = {},
  effect: 'read' | 'write' = 'write',
  cls: 'sandbox' | 'brokered' = 'sandbox',
) => ({
  tool,
  class: cls,
  effect,
  arguments: args,
});

const rule = (match: Rule['match'], verdict: Rule['verdict'] = 'allow', id = 'r'): Rule => ({
  id,
  match,
  verdict,
});
const only = (r: Rule) => ({ rules: [r], default: 'deny' as const });
const matches = (r: Rule, input: ReturnType<typeof call>) =>
  evaluatePolicy(only(r), input).rule_id === r.id;

describe('policy evaluation', () => {
  test('first matching rule wins', () => {
    const policy = {
      rules: [rule({ tool: 'Bash' }, 'deny', 'first'), rule({ tool: 'Bash' }, 'allow', 'second')],
      default: 'allow' as const,
    };
    assert.deepEqual(evaluatePolicy(policy, call('Bash')), { verdict: 'deny', rule_id: 'first' });
  });

  test('no match gives the default, with no rule id', () => {
    assert.deepEqual(
      evaluatePolicy(
        { rules: [rule({ tool: 'Bash' })], default: 'require_approval' },
        call('Read'),
      ),
      {
        verdict: 'require_approval',
        rule_id: null,
      },
    );
  });

  test('an empty match matches everything', () => {
    assert.equal(matches(rule({}), call('anything')), true);
  });

  test('tool globs: * spans any characters, ? one', () => {
    assert.equal(
      matches(rule({ tool: 'mcp__github__*' }), call('mcp__github__create_issue')),
      true,
    );
    assert.equal(matches(rule({ tool: 'mcp__github__*' }), call('mcp__jira__create_issue')), false);
    assert.equal(matches(rule({ tool: 'Rea?' }), call('Read')), true);
    assert.equal(matches(rule({ tool: 'Rea?' }), call('Reads')), false);
    assert.equal(matches(rule({ tool: 'Bash' }), call('bash')), false);
  });

  test('class and effect must both match when given', () => {
    const r = rule({ class: 'brokered', effect: 'read' });
    assert.equal(matches(r, call('x', {}, 'read', 'brokered')), true);
    assert.equal(matches(r, call('x', {}, 'write', 'brokered')), false);
    assert.equal(matches(r, call('x', {}, 'read', 'sandbox')), false);
  });

  describe('argument predicates', () => {
    const args = {
      path: '/repo/src/a.ts',
      n: 3,
      flags: ['x', 'y'],
      nested: { 'a/b': { '~k': true } },
      none: null,
    };

    test('eq compares JSON values, not references or key order', () => {
      assert.equal(
        matches(rule({ args: [{ path: '/n', op: 'eq', value: 3 }] }), call('t', args)),
        true,
      );
      assert.equal(
        matches(rule({ args: [{ path: '/n', op: 'eq', value: '3' }] }), call('t', args)),
        false,
      );
      assert.equal(
        matches(rule({ args: [{ path: '/flags', op: 'eq', value: ['x', 'y'] }] }), call('t', args)),
        true,
      );
      assert.equal(
        matches(
          rule({ args: [{ path: '/nested', op: 'eq', value: { 'a/b': { '~k': true } } }] }),
          call('t', args),
        ),
        true,
      );
      assert.equal(
        matches(rule({ args: [{ path: '/none', op: 'eq', value: null }] }), call('t', args)),
        true,
      );
      assert.equal(
        matches(rule({ args: [{ path: '/missing', op: 'eq', value: null }] }), call('t', args)),
        false,
      );
    });

    test('in matches any listed value', () => {
      assert.equal(
        matches(rule({ args: [{ path: '/n', op: 'in', value: [1, 2, 3] }] }), call('t', args)),
        true,
      );
      assert.equal(
        matches(rule({ args: [{ path: '/n', op: 'in', value: [1, 2] }] }), call('t', args)),
        false,
      );
      assert.equal(
        matches(rule({ args: [{ path: '/missing', op: 'in', value: [null] }] }), call('t', args)),
        false,
      );
    });

    test('prefix applies to strings only', () => {
      assert.equal(
        matches(
          rule({ args: [{ path: '/path', op: 'prefix', value: '/repo/' }] }),
          call('t', args),
        ),
        true,
      );
      assert.equal(
        matches(rule({ args: [{ path: '/path', op: 'prefix', value: '/etc/' }] }), call('t', args)),
        false,
      );
      assert.equal(
        matches(rule({ args: [{ path: '/n', op: 'prefix', value: '3' }] }), call('t', args)),
        false,
      );
    });

    test('glob applies to strings, * crossing "/"', () => {
      assert.equal(
        matches(rule({ args: [{ path: '/path', op: 'glob', value: '/repo/*' }] }), call('t', args)),
        true,
      );
      assert.equal(
        matches(rule({ args: [{ path: '/path', op: 'glob', value: '*.ts' }] }), call('t', args)),
        true,
      );
      assert.equal(
        matches(rule({ args: [{ path: '/path', op: 'glob', value: '*.js' }] }), call('t', args)),
        false,
      );
      assert.equal(
        matches(rule({ args: [{ path: '/n', op: 'glob', value: '*' }] }), call('t', args)),
        false,
      );
    });

    test('exists holds for any present value, null included', () => {
      assert.equal(
        matches(rule({ args: [{ path: '/none', op: 'exists' }] }), call('t', args)),
        true,
      );
      assert.equal(
        matches(rule({ args: [{ path: '/flags/1', op: 'exists' }] }), call('t', args)),
        true,
      );
      assert.equal(
        matches(rule({ args: [{ path: '/flags/2', op: 'exists' }] }), call('t', args)),
        false,
      );
      assert.equal(
        matches(rule({ args: [{ path: '/missing', op: 'exists' }] }), call('t', args)),
        false,
      );
    });

    test('JSON pointers follow RFC 6901 escapes and never the prototype chain', () => {
      assert.equal(
        matches(
          rule({ args: [{ path: '/nested/a~1b/~0k', op: 'eq', value: true }] }),
          call('t', args),
        ),
        true,
      );
      assert.equal(
        matches(rule({ args: [{ path: '/__proto__', op: 'exists' }] }), call('t', args)),
        false,
      );
      assert.equal(
        matches(rule({ args: [{ path: '/path/length', op: 'exists' }] }), call('t', args)),
        false,
      );
      assert.equal(
        matches(rule({ args: [{ path: '/flags/01', op: 'exists' }] }), call('t', args)),
        false,
      );
      assert.equal(
        matches(rule({ args: [{ path: '', op: 'eq', value: args }] }), call('t', args)),
        true,
      );
    });

    test('every predicate of a rule must hold', () => {
      const r = rule({
        args: [
          { path: '/path', op: 'prefix', value: '/repo' },
          { path: '/n', op: 'eq', value: 4 },
        ],
      });
      assert.equal(matches(r, call('t', args)), false);
    });
  });

  test('the policy schema refuses bad pointers, duplicate rule ids and unknown operators', () => {
    const ok = policyWithRules([rule({ args: [{ path: '/a', op: 'exists' }] })]);
    assert.equal(ok.success, true);
    for (const rules of [
      [rule({ args: [{ path: 'a', op: 'exists' }] })],
      [rule({ args: [{ path: '/a~2', op: 'exists' }] })],
      [rule({}), rule({})],
      [{ id: 'r', match: { args: [{ path: '/a', op: 'regex', value: '.*' }] }, verdict: 'allow' }],
      [{ id: 'r', match: { tool: 'x' }, verdict: 'maybe' }],
    ]) {
      assert.equal(policyWithRules(rules).success, false, JSON.stringify(rules));
    }
  });
});

describe('autonomy', () => {
  test('require_approval becomes the fallback in autonomous mode, and the original is kept', () => {
    assert.deepEqual(
      applyAutonomy({ verdict: 'require_approval', rule_id: 'r' }, 'autonomous', 'allow'),
      {
        verdict: 'allow',
        rule_id: 'r',
        original_verdict: 'require_approval',
      },
    );
  });

  test('nothing else changes: supervised runs, and allow or deny in autonomous runs', () => {
    assert.equal(
      applyAutonomy({ verdict: 'require_approval', rule_id: null }, 'supervised', 'allow').verdict,
      'require_approval',
    );
    assert.equal(
      applyAutonomy({ verdict: 'deny', rule_id: null }, 'autonomous', 'allow').verdict,
      'deny',
    );
    assert.equal(
      applyAutonomy({ verdict: 'allow', rule_id: null }, 'autonomous', 'deny').verdict,
      'allow',
    );
  });
});
