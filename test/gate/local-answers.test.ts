import assert from 'node:assert/strict';
import { test } from 'vitest';
import { LocalAnswers } from '../../src/application/tool-call/local-answers.js';
import type { GateAnswer } from '../../src/domain/gate/vocabulary.js';

const allow: GateAnswer = {
  status: 'decided',
  decision: 'allow',
  reason: 'allowed by rule "r"',
};
const deny: GateAnswer = {
  status: 'decided',
  decision: 'deny',
  source: 'policy',
  reason: 'denied by rule "r"',
};

test('a decision recorded before the wait is read is still handed over, at once', async () => {
  const answers = new LocalAnswers();
  const local = answers.expect('s1', 'c1');
  answers.deliver('s1', 'c1', allow);
  const started = performance.now();
  assert.deepEqual(await local.within(5_000), allow);
  assert.ok(performance.now() - started < 1_000);
  local.cancel();
  assert.equal(answers.size, 0);
});

test('a decision recorded while the request waits ends the wait with it', async () => {
  const answers = new LocalAnswers();
  const local = answers.expect('s1', 'c1');
  setTimeout(() => {
    answers.deliver('s1', 'c1', deny);
  }, 20);
  assert.deepEqual(await local.within(5_000), deny);
  local.cancel();
});

test('nothing recorded in time: undefined, and the call is no longer held', async () => {
  const answers = new LocalAnswers();
  const local = answers.expect('s1', 'c1');
  assert.equal(await local.within(30), undefined);
  local.cancel();
  assert.equal(answers.size, 0);
  // A late decision finds nobody and is not kept.
  answers.deliver('s1', 'c1', allow);
  assert.equal(answers.size, 0);
});

test('two requests for the same call both get its decision; another call wakes neither', async () => {
  const answers = new LocalAnswers();
  const first = answers.expect('s1', 'c1');
  const second = answers.expect('s1', 'c1');
  const other = answers.expect('s1', 'c2');
  answers.deliver('s1', 'c1', allow);
  assert.deepEqual(await first.within(1_000), allow);
  assert.deepEqual(await second.within(1_000), allow);
  assert.equal(await other.within(30), undefined);
  first.cancel();
  assert.equal(answers.size, 2);
  second.cancel();
  other.cancel();
  assert.equal(answers.size, 0);
});

test('ids are kept apart: a session id ending like another call id does not collide', async () => {
  const answers = new LocalAnswers();
  const local = answers.expect('s1', 'c1');
  answers.deliver('s1c', '1', deny);
  answers.deliver('s', '1c1', deny);
  assert.equal(await local.within(30), undefined);
  local.cancel();
});
