import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, test } from 'vitest';
import { WaitNotifications } from '../../src/api/wait-notifications.js';
import { awaitToolCall } from '../../src/application/tool-call/await-answer.js';
import type { SessionId, ToolCallId } from '../../src/domain/gate/ids.js';
import { appendEvent, readStreamHead } from '../../src/store/ledger.js';
import { createPool, withTransaction } from '../../src/store/pool.js';
import { waitChannels, watchStream } from '../../src/store/wait-notifications.js';
import { requested } from '../ledger/support.js';
import { testConfig } from '../support/env.js';
import { useHarness } from '../support/harness.js';
import { askForBash, createRun, expectStatus, toolCallUntilAnswered } from '../support/seed.js';

/**
 * A ledger append and a call's answer notify only while a reader watches them. With the safety
 * net's re-check switched off (an hour), only a notice wakes a reader here: a wake-up lost between
 * a watch and a write would leave the reader waiting out its whole wait.
 */
const h = useHarness({ policy: askForBash });
const noRecheck = 3_600_000;
const waitMs = 20_000;
let notifications: WaitNotifications;
let listener: pg.Client;
const heard: string[] = [];

beforeAll(async () => {
  notifications = new WaitNotifications(testConfig().databaseUrl, h.db, {
    recheckMs: noRecheck,
    approvalsRecheckMs: noRecheck,
  });
  notifications.start();
  listener = new pg.Client({ connectionString: testConfig().databaseUrl });
  await listener.connect();
  listener.on('notification', (message) => heard.push(message.payload ?? ''));
  await listener.query(`listen ${waitChannels.ledger}`);
});
afterAll(async () => {
  await notifications.close();
  await listener.end();
});

/** The notices of the ledger channel that commit before now, in commit order. */
async function noticesUntilNow(): Promise<string[]> {
  const marker = `marker-${randomUUID()}`;
  await h.db.query('select pg_notify($1, $2)', [waitChannels.ledger, marker]);
  const deadline = Date.now() + 10_000;
  while (!heard.includes(marker)) {
    assert.ok(Date.now() < deadline, 'the marker notice arrives');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return heard.splice(0, heard.length).filter((payload) => payload !== marker);
}

const append = (stream: string, n: number) =>
  withTransaction(h.db, (tx) => appendEvent(tx, stream, requested(n)));

describe('notices only for what a reader watches', () => {
  test('an append notifies only while its stream is watched; a watch moves nothing else of the head', async () => {
    const quiet = `stream-${randomUUID()}`;
    const watched = `stream-${randomUUID()}`;
    const fresh = `stream-${randomUUID()}`;
    await append(quiet, 1);
    await append(watched, 1);
    await noticesUntilNow();

    assert.equal(await watchStream(h.db, watched, 60_000), true);
    assert.equal(await watchStream(h.db, fresh, 60_000), false, 'no head to watch');
    assert.equal(await readStreamHead(h.db, fresh), undefined, 'a watch writes no head');
    await append(quiet, 2);
    await append(watched, 2);
    await append(fresh, 1);
    assert.deepEqual(await noticesUntilNow(), [watched]);

    const { rows } = await h.db.query<{ head_seq: string }>(
      'select head_seq from ledger_streams where stream_id = $1',
      [watched],
    );
    assert.equal(Number(rows[0]?.head_seq), 2, 'the watch left the head where the appends put it');
    await assert.rejects(
      h.db.query(`update ledger_streams set head_hash = repeat('1', 64) where stream_id = $1`, [
        watched,
      ]),
      /head only moves forward/,
    );

    // A watch that has ended sends nothing more.
    await h.db.query(
      `update ledger_streams set watched_until = now() - interval '1 second' where stream_id = $1`,
      [watched],
    );
    await append(watched, 3);
    assert.deepEqual(await noticesUntilNow(), []);
  });

  test('a reader that watches, then reads, is woken by any append its read missed, whatever the interleaving', async () => {
    const rounds = 60;
    let wokenByNotice = 0;
    for (let round = 0; round < rounds; round += 1) {
      const stream = `stream-${randomUUID()}`;
      await append(stream, 1);
      const writer = (async () => {
        await new Promise((resolve) => setTimeout(resolve, round % 4));
        await append(stream, 2);
      })();
      const started = Date.now();
      await notifications.watchAppends(stream);
      const woken = notifications.waitForAppend(stream, 1, waitMs, new AbortController().signal);
      const seen = (await readStreamHead(h.db, stream))?.seq ?? 0;
      if (seen < 2) {
        await woken;
        wokenByNotice += 1;
        assert.ok(Date.now() - started < waitMs / 2, `round ${round}: woken, not timed out`);
        assert.equal((await readStreamHead(h.db, stream))?.seq, 2, `round ${round}`);
      }
      await writer;
    }
    assert.ok(wokenByNotice > 0, 'some reads missed the append and waited for its notice');

    // An append holding the head when the watch comes: the watch waits for its commit, so the
    // read after the watch finds the append.
    const stream = `stream-${randomUUID()}`;
    await append(stream, 1);
    const writer = await h.db.connect();
    try {
      await writer.query('begin');
      await appendEvent(writer, stream, requested(2));
      let watched = false;
      const watching = notifications.watchAppends(stream).then(() => {
        watched = true;
      });
      await new Promise((resolve) => setTimeout(resolve, 300));
      assert.equal(watched, false, 'the watch waits on the append that holds the head');
      await writer.query('commit');
      await watching;
      assert.equal((await readStreamHead(h.db, stream))?.seq, 2);
    } finally {
      writer.release();
    }
  });

  test("a runner's wait on a paused call is woken by the person's decision, whatever the interleaving", async () => {
    const rounds = 12;
    for (let round = 0; round < rounds; round += 1) {
      const run = await createRun(h.api, h.seed);
      const callId = `c${round}`;
      // A watch before the call is there watches nothing, and is not taken for one.
      await notifications.watchToolCall(run.session_id, callId, waitMs);
      const paused = await expectStatus(
        toolCallUntilAnswered(h.api, run, callId, { tool: 'Bash', arguments: { command: 'ls' } }),
        202,
      );
      assert.equal(paused.status, 'pending_approval');
      const started = Date.now();
      const waiting = awaitToolCall(
        h.db,
        run.session_id as SessionId,
        callId as ToolCallId,
        waitMs,
        notifications,
        new AbortController().signal,
      );
      await new Promise((resolve) => setTimeout(resolve, round % 3));
      await expectStatus(
        h.api.call('POST', `/v1/approvals/${run.session_id}/${callId}/decision`, {
          token: h.seed.admin.token,
          body: { decision: 'approve' },
        }),
        200,
      );
      const state = await waiting;
      assert.equal(state.status, 'decided', `round ${round}`);
      assert.ok(Date.now() - started < waitMs / 2, `round ${round}: woken, not timed out`);
    }
  });

  test("a writer holding the call's row holds the watch, not the wait: its bound and the runner's hang-up still end it, one watch queues, a failed one ends no wait", async () => {
    const run = await createRun(h.api, h.seed);
    const paused = await expectStatus(
      toolCallUntilAnswered(h.api, run, 'held', { tool: 'Bash', arguments: { command: 'ls' } }),
      202,
    );
    assert.equal(paused.status, 'pending_approval');
    // A transaction holding the call's row, as a decision's does until it commits; released
    // long after either wait below should have ended.
    const holder = new pg.Client({ connectionString: testConfig().databaseUrl });
    await holder.connect();
    const heldMs = 12_000;
    /** The watches queued behind the holder: blocked by it, or by a watch it blocks. */
    const queuedWatches = async (holderPid: number) => {
      const { rows } = await h.db.query<{ n: number }>(
        `with recursive blocked (pid) as (
           select pid from pg_stat_activity where $1::int = any (pg_blocking_pids(pid))
           union
           select a.pid from pg_stat_activity a join blocked b on b.pid = any (pg_blocking_pids(a.pid))
         )
         select count(*)::int as n from blocked join pg_stat_activity a using (pid)
          where a.query like 'update tool_calls%watched_until%'`,
        [holderPid],
      );
      return rows[0]!.n;
    };
    try {
      await holder.query('begin');
      const { rows: pids } = await holder.query<{ pid: number }>('select pg_backend_pid() as pid');
      const locked = await holder.query(
        'select 1 from tool_calls where session_id = $1 and tool_call_id = $2 for update',
        [run.session_id, 'held'],
      );
      assert.equal(locked.rowCount, 1, "the call's row is held");
      const release = setTimeout(
        () => void holder.query('rollback').catch(() => undefined),
        heldMs,
      );
      try {
        const wait = (ms: number, signal: AbortSignal) =>
          awaitToolCall(
            h.db,
            run.session_id as SessionId,
            'held' as ToolCallId,
            ms,
            notifications,
            signal,
          );
        let started = Date.now();
        const bounded = await wait(1_500, new AbortController().signal);
        assert.equal(bounded.status, 'pending_approval');
        const boundedMs = Date.now() - started;
        assert.ok(
          boundedMs >= 1_400 && boundedMs < heldMs / 2,
          `the wait's bound: ${boundedMs} ms`,
        );

        started = Date.now();
        const hangUp = new AbortController();
        setTimeout(() => {
          hangUp.abort();
        }, 500);
        const gone = await wait(waitMs, hangUp.signal);
        assert.equal(gone.status, 'pending_approval');
        assert.ok(Date.now() - started < heldMs / 2, `the hang-up: ${Date.now() - started} ms`);
        // The second wait took the first's watch, still queued: one connection held, not two.
        assert.equal(await queuedWatches(pids[0]!.pid), 1, 'one watch queued behind the writer');

        // A watch that fails (its statement's timeout, here 300 ms) ends no wait with an error:
        // the wait goes on, without notices, to its bound.
        const strictPool = createPool(testConfig().databaseUrl, { statementMs: 300 });
        const strict = new WaitNotifications(testConfig().databaseUrl, strictPool, {
          recheckMs: noRecheck,
        });
        try {
          started = Date.now();
          const unwatched = await awaitToolCall(
            h.db,
            run.session_id as SessionId,
            'held' as ToolCallId,
            2_000,
            strict,
            new AbortController().signal,
          );
          assert.equal(unwatched.status, 'pending_approval');
          const unwatchedMs = Date.now() - started;
          assert.ok(
            unwatchedMs >= 1_900 && unwatchedMs < heldMs / 2,
            `a failed watch: ${unwatchedMs} ms`,
          );
        } finally {
          await strict.close();
          await strictPool.end();
        }
      } finally {
        clearTimeout(release);
        await holder.query('rollback').catch(() => undefined);
      }
    } finally {
      await holder.end();
    }
  });
});
