/**
 * A workspace whose MCP servers stall holds no more of a worker's activity slots than its share:
 * past it a brokered call is not carried out and says so, and another workspace's brokered calls
 * run meanwhile.
 */
import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, test } from 'vitest';
import { WorkspaceShares } from '../../src/activities/workspace-shares.js';
import { useHarness } from '../support/harness.js';
import { startRugpullUpstream, type RugpullUpstream } from '../support/rugpull-upstream.js';
import {
  createRun,
  defaultPolicy,
  expectStatus,
  seedWorkspace,
  toolCall,
  untilAnswered,
  type CreatedRun,
  type Seed,
} from '../support/seed.js';

const allowAll = { ...defaultPolicy, rules: [{ id: 'all', match: {}, verdict: 'allow' }] };
// A queue of the file's own: the API's worker alone carries out both workspaces' calls.
const h = useHarness({
  policy: allowAll,
  api: {
    temporal: { taskQueue: `workspace-shares-${randomUUID()}` },
    eagerStart: true,
    brokerCallsPerWorkspace: 2,
  },
});
const token = randomBytes(16).toString('hex');
let stalling: RugpullUpstream;
let answering: RugpullUpstream;

beforeAll(async () => {
  [stalling, answering] = await Promise.all([
    startRugpullUpstream({ token }),
    startRugpullUpstream({ token }),
  ]);
});
afterAll(async () => {
  await Promise.all([stalling.close(), answering.close()]);
});

async function runOn(seed: Seed, upstream: RugpullUpstream): Promise<CreatedRun> {
  const connection = await expectStatus(
    h.api.call('POST', '/v1/connections', {
      token: h.api.operatorKey,
      body: {
        workspace: seed.workspace,
        name: 'notes',
        kind: 'org',
        url: upstream.url,
        credential: { type: 'bearer', token },
      },
    }),
    201,
  );
  return createRun(h.api, seed, { tools: { bundles: [], connections: [{ id: connection.id }] } });
}

const search = (run: CreatedRun, id: string) =>
  untilAnswered(
    () =>
      toolCall(h.api, run, id, {
        tool: 'mcp__notes__search_notes',
        arguments: { query: id },
        execute: true,
      }),
    120_000,
  );

async function until(done: () => boolean, what: string) {
  const deadline = Date.now() + 60_000;
  while (!done()) {
    assert.ok(Date.now() < deadline, `not within a minute: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('a workspace share of brokered calls', () => {
  test('a share is taken up to the limit, given back once, and per workspace', () => {
    const shares = new WorkspaceShares(2);
    const first = shares.take('a');
    const second = shares.take('a');
    assert.ok(first && second);
    assert.equal(shares.take('a'), undefined, 'the third of workspace a waits for none');
    assert.ok(shares.take('b'), 'workspace b has its own');
    first();
    first();
    assert.equal(shares.underWayFor('a'), 1, 'given back once however often called');
    assert.ok(shares.take('a'));
  });

  test('a call past the share waits a while for one: handed the first given back, else none', async () => {
    const shares = new WorkspaceShares(1);
    const held = shares.take('a');
    assert.ok(held);
    const waiting = shares.waitFor('a', 5_000);
    held();
    const handed = await waiting;
    assert.ok(handed, 'the share given back went to the waiting call');
    assert.equal(shares.underWayFor('a'), 1);
    assert.equal(await shares.waitFor('a', 50), undefined, 'none given back within the wait');
    handed();
    assert.equal(shares.underWayFor('a'), 0);
  });

  test("a stalling server's workspace has two calls under way and no more; the third is not carried out, and another workspace's call runs meanwhile", async () => {
    const stalled = await runOn(h.seed, stalling);
    const other = await runOn(await seedWorkspace(h.api, allowAll), answering);
    const release = stalling.holdCalls();
    try {
      const held = [search(stalled, 'held-1'), search(stalled, 'held-2')];
      await until(() => stalling.calls.length === 2, 'two calls held at the stalling server');

      const past = await search(stalled, 'past-share');
      assert.equal(past.status, 200, JSON.stringify(past.body));
      assert.equal(past.body.result.isError, true);
      assert.match(
        past.body.result.content[0].text,
        /^the workspace has 2 brokered calls under way, as many as it may at once; this call was not carried out/,
      );
      assert.equal(stalling.calls.length, 2, 'the call past the share never reached the server');

      const meanwhile = await search(other, 'other-workspace');
      assert.equal(meanwhile.status, 200, JSON.stringify(meanwhile.body));
      assert.equal(meanwhile.body.result.isError, undefined, JSON.stringify(meanwhile.body));
      assert.equal(answering.calls.length, 1);

      release();
      for (const answer of await Promise.all(held)) {
        assert.equal(answer.status, 200, JSON.stringify(answer.body));
        assert.equal(answer.body.result.isError, undefined, JSON.stringify(answer.body));
      }
      const after = await search(stalled, 'after');
      assert.equal(after.body.result.isError, undefined, 'the shares were given back');
      assert.equal(stalling.calls.length, 3);
    } finally {
      release();
    }
  });
});
