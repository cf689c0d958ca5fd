/**
 * `GET /v1/approvals`: what waits, grouped by run, oldest first, paged; and what was decided,
 * by whom, when and why.
 */
import assert from 'node:assert/strict';
import { beforeAll, describe, test } from 'vitest';
import { useHarness } from '../support/harness.js';
import {
  askForBash,
  createRun,
  expectStatus,
  type CreatedRun,
  toolCallUntilAnswered,
} from '../support/seed.js';

const h = useHarness({ policy: askForBash });
let first: CreatedRun;
let second: CreatedRun;

interface Listed {
  tool_call_id: string;
  run_id: string;
  summary?: string;
  status: string;
  reason?: string | null;
  decided_by_name?: string | null;
}
interface ListBody {
  total: number;
  runs: { run_id: string; repository: string | null; pull_request: unknown }[];
  approvals: Listed[];
}

const list = async (query: string) =>
  expectStatus<ListBody>(
    h.api.call('GET', `/v1/approvals${query}`, { token: h.seed.admin.token }),
    200,
  );

describe('the approvals list', () => {
  beforeAll(async () => {
    first = await createRun(h.api, h.seed, {
      source: {
        kind: 'pull_request',
        repository: 'acme/widgets',
        pull_request: { base_repo: 'acme/widgets', head_repo: 'acme/widgets', number: 12 },
      },
    });
    second = await createRun(h.api, h.seed, { source: { kind: 'manual', repository: 'acme/x' } });
    // first's calls are the oldest; second's one comes between them in time.
    await expectStatus(
      toolCallUntilAnswered(h.api, first, 'a1', {
        tool: 'Bash',
        arguments: { command: 'npm test' },
      }),
      202,
    );
    await expectStatus(
      toolCallUntilAnswered(h.api, second, 'b1', { tool: 'Bash', arguments: { command: 'ls' } }),
      202,
    );
    await expectStatus(
      toolCallUntilAnswered(h.api, first, 'a2', { tool: 'Bash', arguments: { command: 'npm ci' } }),
      202,
    );
  });

  test('pending calls come grouped by run, the run with the oldest call first, each in one line', async () => {
    const body = await list('');
    assert.deepEqual(
      body.approvals.map((a) => [a.tool_call_id, a.summary]),
      [
        ['a1', 'npm test'],
        ['a2', 'npm ci'],
        ['b1', 'ls'],
      ],
    );
    assert.deepEqual(
      body.runs.map((r) => [r.run_id, r.repository]),
      [
        [first.run_id, 'acme/widgets'],
        [second.run_id, 'acme/x'],
      ],
    );
    assert.deepEqual(body.runs[0]?.pull_request, {
      number: 12,
      url: 'https://github.com/acme/widgets/pull/12',
    });
  });

  test('a page holds per_page calls and the total counts them all', async () => {
    const page2 = await list('?per_page=2&page=2');
    assert.equal(page2.total, 3);
    assert.deepEqual(
      page2.approvals.map((a) => a.tool_call_id),
      ['b1'],
    );
  });

  test('the decided view names who decided, and the reason they gave the agent', async () => {
    await expectStatus(
      h.api.call('POST', `/v1/approvals/${first.session_id}/a2/decision`, {
        token: h.seed.admin.token,
        body: { decision: 'deny', reason: 'use npm ci --ignore-scripts' },
      }),
      200,
    );
    const decided = await list('?status=decided');
    assert.deepEqual(
      decided.approvals.map((a) => [a.tool_call_id, a.status, a.decided_by_name, a.reason]),
      [['a2', 'denied', 'ana', 'use npm ci --ignore-scripts']],
    );
    const pending = await list('?status=pending');
    assert.deepEqual(
      pending.approvals.map((a) => a.tool_call_id),
      ['a1', 'b1'],
    );
  });

  test('an unknown status or a page size out of bounds is a 400 naming the field', async () => {
    for (const query of ['?status=maybe', '?per_page=500', '?page=0', '?colour=red']) {
      const answer = await h.api.call('GET', `/v1/approvals${query}`, {
        token: h.seed.admin.token,
      });
      assert.equal(answer.status, 400, query);
    }
  });
});
