import assert from 'node:assert/strict';
import { test } from 'vitest';
import { matchedConditions } from '../../../src/domain/policy/explain.js';
import { bash, onCommand } from './support.js';

test('a command rule names the patterns a command of the line matched, never the line itself', () => {
  const rule = onCommand('no-net', 'deny', [
    ['curl', '**'],
    ['wget', '**'],
    ['nc', '**'],
  ]);
  const text = matchedConditions(rule, bash('cd /tmp && wget http://secret.example/x'));
  assert.equal(text, 'tool "Bash"\n/command command ["wget","**"]');
  assert.ok(!text.includes('secret'));
});

test('a rule of tool, class, effect and argument predicates names each condition', () => {
  const text = matchedConditions(
    {
      id: 'r',
      match: {
        class: 'sandbox',
        effect: 'write',
        args: [
          { path: '/command', op: 'prefix', value: 'git ' },
          { path: '/cwd', op: 'exists' },
        ],
      },
      verdict: 'allow',
    },
    bash('git status'),
  );
  assert.equal(text, 'class sandbox\neffect write\n/command prefix "git "\n/cwd exists');
  assert.equal(
    matchedConditions({ id: 'all', match: {}, verdict: 'deny' }, bash('x')),
    'match all',
  );
});
