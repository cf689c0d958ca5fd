import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createRun, expectStatus, toolCall } from '../support/seed.js';
import { readSse } from '../support/sse.js';
import { useHarness } from '../support/harness.js';

const h = useHarness();

const read = (path: string, token: string) => h.api.call('GET', path, { token });

describe('the events API', () => {
  test('a run records run.created, then tool.requested and tool.decision per call, gapless', async () => {
    const run = await createRun(h.api, h.seed);
    await expectStatus(
      toolCall(h.api, run, 'c1', { tool: 'Read', arguments: { file_path: 'a' } }),
      200,
    );
    await expectStatus(toolCall(h.api, run, 'c2', { tool: 'Nope', arguments: {} }), 200);
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
        toolCall(h.api, run, id, { tool: 'Read', arguments: { file_path: id } }),
        200,
      );
    }
    const clean = await expectStatus(
      read(`/v1/sessions/${run.session_id}/events/verify`, h.api.operatorKey),
      200,
    );
    assert.deepEqual(clean, { ok: true, events: 7 });

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
      toolCall(h.api, run, 'c1', { tool: 'Read', arguments: { file_path: 'a' } }),
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

describe('server-sent events', () => {
  test('a client that disconnects and reconnects with Last-Event-ID gets exactly the missing events, in order', async () => {
    const run = await createRun(h.api, h.seed);
    await expectStatus(
      toolCall(h.api, run, 'c1', { tool: 'Read', arguments: { file_path: 'a' } }),
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
      toolCall(h.api, run, 'c2', { tool: 'Grep', arguments: { pattern: 'x' } }),
      200,
    );
    await expectStatus(
      toolCall(h.api, run, 'c3', { tool: 'Bash', arguments: { command: 'rm -rf /' } }),
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
      toolCall(h.api, run, 'c1', { tool: 'Read', arguments: { file_path: 'a' } }),
      200,
    );
    await expectStatus(
      toolCall(h.api, run, 'c2', { tool: 'Read', arguments: { file_path: 'b' } }),
      200,
    );
    const events = await reading;
    assert.deepEqual(
      events.map((e) => e.id),
      ['1', '2', '3', '4', '5'],
    );
  });
});
