import assert from 'node:assert/strict';
import { test } from 'vitest';
import { windowQueries } from '../../src/temporal/recorded-calls.js';

const window = { since: new Date('2026-11-01T00:00:00Z'), until: new Date('2026-11-02T00:00:00Z') };
const sessionsIn = (query: string) => [...query.matchAll(/'(s-\d+)'/g)].map((m) => m[1]);

test('a window without sessions is one query over every gate call started within it', () => {
  const queries = windowQueries(window);
  assert.equal(queries.length, 1);
  assert.match(queries[0]!, /StartTime >= '2026-11-01T00:00:00.000Z'/);
  assert.doesNotMatch(queries[0]!, /GateSessionId/);
});

test("a policy's many sessions are read a hundred at a time, each session in exactly one query", () => {
  const sessions = Array.from({ length: 250 }, (_, n) => `s-${n}`);
  const queries = windowQueries({ ...window, sessions });
  assert.equal(queries.length, 3);
  const named = queries.map(sessionsIn);
  assert.deepEqual(
    named.map((part) => part.length),
    [100, 100, 50],
  );
  assert.deepEqual(named.flat(), sessions);
  for (const query of queries) assert.match(query, /StartTime < '2026-11-02T00:00:00.000Z'/);
});
