import assert from 'node:assert/strict';
import { test } from 'vitest';
import { taskOf } from '../../src/api/mcp/tasks.js';
import type { McpTaskRow } from '../../src/store/mcp-calls.js';
import type { RunId, SessionId, ToolCallId } from '../../src/domain/gate/ids.js';

const created = new Date('2026-12-02T09:00:00Z');
const decided = new Date('2026-12-02T09:05:00Z');

function row(over: Partial<McpTaskRow>): McpTaskRow {
  return {
    session_id: 's-1' as SessionId,
    tool_call_id: 'mcp-task-1' as ToolCallId,
    run_id: 'r' as RunId,
    tool: 'mcp__notes__create_note',
    request_digest: 'sha256:0',
    status: 'evaluating',
    decision: null,
    source: null,
    answer: null,
    awaits_result: true,
    created_at: created,
    decided_at: null,
    cancelled: false,
    ...over,
  };
}

const approval = { url: 'https://gate.example/approvals/s-1/mcp-task-1', expires_at: 'later' };

test('a task is working while the call waits for a person, naming where it is decided', () => {
  const task = taskOf(
    row({ status: 'pending_approval', answer: { status: 'pending_approval', approval } }),
  );
  assert.equal(task.taskId, 'mcp-task-1');
  assert.equal(task.status, 'working');
  assert.match(task.statusMessage ?? '', /approvals\/s-1\/mcp-task-1/);
  assert.equal(task.createdAt, created.toISOString());
});

test('an allow with its result is completed; an allow still awaiting its result is working', () => {
  const allow = { status: 'decided', decision: 'allow', reason: 'ok' } as const;
  const done = row({
    status: 'decided',
    decision: 'allow',
    answer: { ...allow, result: { content: [] } },
    decided_at: decided,
  });
  assert.equal(taskOf(done).status, 'completed');
  assert.equal(taskOf(done).lastUpdatedAt, decided.toISOString());
  const running = row({ status: 'decided', decision: 'allow', answer: allow, decided_at: decided });
  assert.equal(taskOf(running).status, 'working');
});

test("a deny is failed with the deny's reason; a withdrawn call is cancelled", () => {
  const deny = {
    status: 'decided',
    decision: 'deny',
    source: 'approval',
    reason: 'denied by ana',
  } as const;
  const denied = row({ status: 'decided', decision: 'deny', answer: deny, decided_at: decided });
  assert.deepEqual(
    [taskOf(denied).status, taskOf(denied).statusMessage],
    ['failed', 'denied by ana'],
  );
  assert.equal(taskOf({ ...denied, cancelled: true }).status, 'cancelled');
});
