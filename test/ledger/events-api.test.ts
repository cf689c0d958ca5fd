import assert from 'node:assert/strict';
import { describe, test } from 'vitest';
import type pg from 'pg';
import { eventHash } from '../../src/domain/ledger/hash-chain.js';
import { createRun, expectStatus, toolCallUntilAnswered } from '../support/seed.js';
import { readSse } from '../support/sse.js';
import { useHarness } from '../support/harness.js';

const h = useHarness();

const read = (path: string, token: string) => h.api.call('GET', path, { token });

describe('the events API', () => {
  test('a run records run.created, then tool.requested and tool.decision per call, gapless', async () => {
    const run = await createRun(h.api, h.seed);
    await expectStatus(
      toolCallUntilAnswered(h.api, run, 'c1', { tool: 'Read', arguments: { file_path: 'a' } }),
      200,
    );
    await expectStatus(
      toolCallUntilAnswered(h.api, run, 'c2', { tool: 'Nope', arguments: {} }),
      200,
    );
    const page = await expectStatus(
      read(`/v1/sessions/${run.session_id}/events`, run.session_token),
      200,
    );
    assert.deepEqual(
      page.events.map((e: any) => [e.seq, e.type]),
      [
        [1, 'run.created'],
        [2, 'tool.requested'],
        [3, 'tool.decision'],
        [4, 'tool.requested'],
        [5, 'tool.decision'],
      ],
    );
    assert.equal(page.next_after, 5);
    assert.equal(page.events[2].data.decision, 'allow');
    assert.equal(page.events[2].data.stage, 'policy');
    assert.equal(page.events[4].data.source, 'capability');
    const next = await expectStatus(
      read(`/v1/sessions/${run.session_id}/events?after=3&limit=1`, run.session_token),
      200,
    );
    assert.deepEqual(
      next.events.map((e: any) => e.seq),
      [4],
    );
    assert.equal(next.next_after, 4);
  });

  test('a runner reads only its own stream; the operator reads any; others learn nothing', async () => {
    const mine = await createRun(h.api, h.seed);
    const theirs = await createRun(h.api, h.seed);
    await expectStatus(read(`/v1/sessions/${theirs.session_id}/events`, mine.session_token), 404);
    await expectStatus(read(`/v1/sessions/${theirs.session_id}/events`, h.api.operatorKey), 200);
    await expectStatus(read(`/v1/sessions/${theirs.session_id}/events`, h.seed.admin.token), 404);
    await expectStatus(h.api.call('GET', `/v1/sessions/${theirs.session_id}/events`), 401);
    await expectStatus(
      read(`/v1/sessions/${theirs.session_id}/events/verify`, theirs.session_token),
      403,
    );
  });

  test('bad paging input is a 400 naming the field', async () => {
    const run = await createRun(h.api, h.seed);
    const bad = await expectStatus(
      read(`/v1/sessions/${run.session_id}/events?after=-1`, run.session_token),
      400,
    );
    assert.equal(bad.errors[0].path, 'query.after');
  });
});

describe('tamper evidence', () => {
  test('changing one event directly in SQL is reported at its seq', async () => {
    const run = await createRun(h.api, h.seed);
    for (const id of ['c1', 'c2', 'c3']) {
      await expectStatus(
        toolCallUntilAnswered(h.api, run, id, { tool: 'Read', arguments: { file_path: id } }),
        200,
      );
    }
    const clean = await expectStatus(
      read(`/v1/sessions/${run.session_id}/events/verify`, h.api.operatorKey),
      200,
    );
    assert.equal(clean.ok, true);
    assert.equal(clean.events, 7);
    assert.equal(clean.head.seq, 7);
    assert.match(clean.head.hash, /^[0-9a-f]{64}$/);

    const client = await h.db.connect();
    try {
      // Going around the append-only trigger takes a deliberate act; the chain still tells.
      await client.query('set session_replication_role = replica');
      await client.query(
        `update ledger_events set data = jsonb_set(data, '{decision}', '"allow"') where stream_id = $1 and seq = 5`,
        [run.session_id],
      );
      await client.query(
        `update ledger_events set data = data || '{"tool":"Bash"}' where stream_id = $1 and seq = 4`,
        [run.session_id],
      );
    } finally {
      await client.query('set session_replication_role = origin');
      client.release();
    }
    const broken = await expectStatus(
      read(`/v1/sessions/${run.session_id}/events/verify`, h.api.operatorKey),
      200,
    );
    assert.equal(broken.ok, false);
    assert.equal(broken.first_broken_seq, 4);
  });

  test('deleting an event is reported where the gap is', async () => {
    const run = await createRun(h.api, h.seed);
    await expectStatus(
      toolCallUntilAnswered(h.api, run, 'c1', { tool: 'Read', arguments: { file_path: 'a' } }),
      200,
    );
    const client = await h.db.connect();
    try {
      await client.query('set session_replication_role = replica');
      await client.query('delete from ledger_events where stream_id = $1 and seq = 2', [
        run.session_id,
      ]);
    } finally {
      await client.query('set session_replication_role = origin');
      client.release();
    }
    const broken = await expectStatus(
      read(`/v1/sessions/${run.session_id}/events/verify`, h.api.operatorKey),
      200,
    );
    assert.equal(broken.first_broken_seq, 3);
    assert.match(broken.problem, /expected seq 2/);
  });
});

describe('tamper evidence against the head', () => {
  /** A run with three calls: seven events, 1 run.created and 2 per call. */
  async function runWithEvents() {
    const run = await createRun(h.api, h.seed);
    for (const id of ['c1', 'c2', 'c3']) {
      await expectStatus(
        toolCallUntilAnswered(h.api, run, id, { tool: 'Read', arguments: { file_path: id } }),
        200,
      );
    }
    return run;
  }

  /** Runs SQL as a superuser would, with every trigger switched off. */
  async function aroundTheTriggers(work: (client: pg.PoolClient) => Promise<unknown>) {
    const client = await h.db.connect();
    try {
      await client.query('set session_replication_role = replica');
      await work(client);
    } finally {
      await client.query('set session_replication_role = origin');
      client.release();
    }
  }

  /** A stream's events from `from` on, with what their hashes cover. */
  async function chainedRows(client: pg.PoolClient, sid: string, from: number) {
    const { rows } = await client.query(
      `select seq, type, to_char(at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as at,
         data, idempotency_key, prev_hash, hash
       from ledger_events where stream_id = $1 and seq >= $2 order by seq`,
      [sid, from],
    );
    return rows;
  }

  const verify = (sessionId: string) =>
    expectStatus(read(`/v1/sessions/${sessionId}/events/verify`, h.api.operatorKey), 200);

  const cases: [
    string,
    (sessionId: string, client: pg.PoolClient) => Promise<unknown>,
    number,
    RegExp,
  ][] = [
    [
      'a deleted tail (the last two events)',
      (sid, client) =>
        client.query('delete from ledger_events where stream_id = $1 and seq >= 6', [sid]),
      6,
      /the head is at seq 7 but the events end at seq 5: events were removed/,
    ],
    [
      'an emptied stream',
      (sid, client) => client.query('delete from ledger_events where stream_id = $1', [sid]),
      1,
      /the head is at seq 7 but there are no events/,
    ],
    [
      'an emptied stream whose head row went too',
      async (sid, client) => {
        await client.query('delete from ledger_events where stream_id = $1', [sid]);
        await client.query('delete from ledger_streams where stream_id = $1', [sid]);
      },
      1,
      /no head row/,
    ],
    [
      'a deleted first event',
      (sid, client) =>
        client.query('delete from ledger_events where stream_id = $1 and seq = 1', [sid]),
      2,
      /expected seq 1, found 2/,
    ],
    [
      'a forged first event that does not start from the genesis hash',
      (sid, client) =>
        client.query(
          `update ledger_events set prev_hash = repeat('1', 64) where stream_id = $1 and seq = 1`,
          [sid],
        ),
      1,
      /genesis/,
    ],
    [
      'an event added behind the head',
      async (sid, client) => {
        const [last] = await chainedRows(client, sid, 7);
        const forged = { ...last, stream_id: sid, seq: 8, idempotency_key: 'forged' };
        await client.query(
          `insert into ledger_events (stream_id, seq, type, at, data, idempotency_key, prev_hash, hash)
           values ($1, 8, $2, $3, $4, 'forged', $5, $6)`,
          [
            sid,
            last.type,
            last.at,
            JSON.stringify(last.data),
            last.hash,
            eventHash(last.hash, forged),
          ],
        );
      },
      8,
      /events run past the head at seq 7/,
    ],
    [
      'an edited event with every later hash recomputed to match',
      async (sid, client) => {
        const rows = await chainedRows(client, sid, 1);
        let prev = rows[3].prev_hash as string;
        for (const row of rows.slice(3)) {
          if (row.seq === 4) row.data = { ...row.data, tool: 'Bash' };
          const hash = eventHash(prev, { ...row, stream_id: sid });
          await client.query(
            'update ledger_events set data = $3, prev_hash = $4, hash = $5 where stream_id = $1 and seq = $2',
            [sid, row.seq, JSON.stringify(row.data), prev, hash],
          );
          prev = hash;
        }
      },
      7,
      /the hash of seq 7 is not the head's: the chain was rewritten/,
    ],
  ];
  for (const [what, tamper, firstBroken, problem] of cases) {
    test(`${what} is reported, naming the first broken seq`, async () => {
      const run = await runWithEvents();
      assert.equal((await verify(run.session_id)).ok, true);
      await aroundTheTriggers((client) => tamper(run.session_id, client));
      const broken = await verify(run.session_id);
      assert.equal(broken.ok, false, JSON.stringify(broken));
      assert.equal(broken.first_broken_seq, firstBroken, broken.problem);
      assert.match(broken.problem, problem);
    });
  }

  test('the head cannot be moved back nor removed while the triggers hold', async () => {
    const run = await runWithEvents();
    const sid = run.session_id;
    await assert.rejects(
      h.db.query('update ledger_streams set head_seq = 5 where stream_id = $1', [sid]),
      /head only moves forward/,
    );
    await assert.rejects(
      h.db.query('delete from ledger_streams where stream_id = $1', [sid]),
      /head only moves forward/,
    );
    await assert.rejects(
      h.db.query('delete from ledger_events where stream_id = $1 and seq = 7', [sid]),
      /immutable/,
    );
    assert.equal((await verify(sid)).ok, true);
  });
});

describe('server-sent events', () => {
  test('a client that disconnects and reconnects with Last-Event-ID gets exactly the missing events, in order', async () => {
    const run = await createRun(h.api, h.seed);
    await expectStatus(
      toolCallUntilAnswered(h.api, run, 'c1', { tool: 'Read', arguments: { file_path: 'a' } }),
      200,
    );
    const url = `${h.api.url}/v1/sessions/${run.session_id}/events/stream`;
    const auth = { authorization: `Bearer ${run.session_token}` };

    const first = await readSse(url, auth, { count: 2 });
    assert.deepEqual(
      first.map((e) => e.id),
      ['1', '2'],
    );
    // While the client is away: more events commit.
    await expectStatus(
      toolCallUntilAnswered(h.api, run, 'c2', { tool: 'Grep', arguments: { pattern: 'x' } }),
      200,
    );
    await expectStatus(
      toolCallUntilAnswered(h.api, run, 'c3', { tool: 'Bash', arguments: { command: 'rm -rf /' } }),
      200,
    );

    const resumed = await readSse(
      url,
      { ...auth, 'last-event-id': '2' },
      { count: 5, timeoutMs: 5_000 },
    );
    assert.deepEqual(
      resumed.map((e) => e.id),
      ['3', '4', '5', '6', '7'],
    );
    assert.deepEqual(
      resumed.map((e) => e.event),
      ['tool.decision', 'tool.requested', 'tool.decision', 'tool.requested', 'tool.decision'],
    );
    assert.equal(JSON.parse(resumed[4]!.data).data.source, 'policy');

    // A Last-Event-ID that is no seq is a 400 naming the header, before anything is streamed.
    const bad = await fetch(url, { headers: { ...auth, 'last-event-id': 'two' } });
    assert.equal(bad.status, 400);
    const problem = (await bad.json()) as { errors: { path: string }[] };
    assert.deepEqual(
      problem.errors.map((e) => e.path),
      ['header.last-event-id'],
    );
  });

  test('a live client receives an event as soon as it is appended, and nothing twice', async () => {
    const run = await createRun(h.api, h.seed);
    const url = `${h.api.url}/v1/sessions/${run.session_id}/events/stream`;
    const reading = readSse(
      url,
      { authorization: `Bearer ${run.session_token}` },
      { count: 5, timeoutMs: 10_000 },
    );
    await new Promise((r) => setTimeout(r, 200));
    await expectStatus(
      toolCallUntilAnswered(h.api, run, 'c1', { tool: 'Read', arguments: { file_path: 'a' } }),
      200,
    );
    await expectStatus(
      toolCallUntilAnswered(h.api, run, 'c2', { tool: 'Read', arguments: { file_path: 'b' } }),
      200,
    );
    const events = await reading;
    assert.deepEqual(
      events.map((e) => e.id),
      ['1', '2', '3', '4', '5'],
    );
  });
});
