import assert from 'node:assert/strict';
import { test } from 'vitest';
import { brokeredToolResult, toolError } from '../../../src/domain/gate/tool-result.js';

test('a deny reaches an MCP client as a tool error carrying the reason, never a protocol error', () => {
  const result = brokeredToolResult({
    status: 'decided',
    decision: 'deny',
    source: 'policy',
    reason: 'denied by rule drafts-denied',
  });
  assert.deepEqual(result, toolError('denied by rule drafts-denied'));
  assert.equal(result.isError, true);
});

test("an allowed brokered call is handed the upstream's governed result as it came", () => {
  const upstream = { content: [{ type: 'text', text: 'ok' }], isError: false };
  assert.deepEqual(
    brokeredToolResult({ status: 'decided', decision: 'allow', reason: 'ok', result: upstream }),
    upstream,
  );
});

test('an allow without a result (the gate never carried it out) is an error, not an empty success', () => {
  const result = brokeredToolResult({ status: 'decided', decision: 'allow', reason: 'ok' });
  assert.equal(result.isError, true);
});
