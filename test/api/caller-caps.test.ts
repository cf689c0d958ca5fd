/**
 * One credential's writes in flight are capped (64 per API process): past the cap a 429,
 * answered before the body is read, so one session cannot hold the database pool (or the gate)
 * for every other; model requests through the gate have a cap of their own (16).
 */
import assert from 'node:assert/strict';
import { IncomingMessage, ServerResponse } from 'node:http';
import { Socket, connect } from 'node:net';
import { randomUUID } from 'node:crypto';
import { afterAll, describe, test } from 'vitest';
import { CallerSlots, callerLimits } from '../../src/api/caller-slots.js';
import { GateClient } from '../../src/runner/gate-client.js';
import { useHarness } from '../support/harness.js';
import { requestHead } from '../support/raw-http.js';
import { burstFromAnotherProcess } from '../support/runner-burst.js';
import {
  createRun,
  expectStatus,
  toolCall,
  untilAnswered,
  type CreatedRun,
} from '../support/seed.js';

const h = useHarness();
const held: Socket[] = [];
afterAll(() => {
  for (const socket of held) socket.destroy();
});

const read = (n: number) => ({ tool: 'Read', arguments: { file_path: `f${n}` } });

/**
 * PUTs of `run` whose headers arrive and whose bodies never do, `extra` more than the cap: each
 * holds a slot from its headers on, so exactly `extra` of them are refused 429 at once. Resolves,
 * once those answers came, with the sockets still held.
 */
async function stalledWrites(run: CreatedRun, extra: number): Promise<Socket[]> {
  const { hostname, port } = new URL(h.api.url);
  const refused: Socket[] = [];
  const sockets = Array.from({ length: callerLimits.writes + extra }, () => {
    const socket = connect(Number(port), hostname);
    socket.on('error', () => undefined);
    socket.once('data', (chunk) => {
      if (/^HTTP\/1\.1 429 /.test(String(chunk))) refused.push(socket);
    });
    const path = `/v1/sessions/${run.session_id}/tool-calls/${randomUUID()}`;
    socket.write(requestHead('PUT', path, run.session_token, 1_000));
    return socket;
  });
  held.push(...sockets);
  const deadline = Date.now() + 30_000;
  while (refused.length < extra && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  assert.equal(refused.length, extra);
  return sockets.filter((socket) => !refused.includes(socket));
}

/** Sends `send` until it answers `status`, for at most 30 s (the server reads what was sent). */
async function until(status: number, send: () => Promise<{ status: number; body: unknown }>) {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const answer = await send();
    if (answer.status === status || Date.now() > deadline) return answer;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('writes in flight, per credential', () => {
  test('a run holding 64 writes gets 429 problem+json for the next, before its body is read; another run is answered at once; the slots come back when the writes end', async () => {
    const greedy = await createRun(h.api, h.seed);
    const other = await createRun(h.api, h.seed);
    const sockets = await stalledWrites(greedy, 8);
    assert.equal(sockets.length, callerLimits.writes);

    const refused = await toolCall(h.api, greedy, randomUUID(), read(1));
    assert.equal(refused.status, 429);
    const problem = refused.body as { type: string; status: number; detail: string };
    assert.equal(problem.status, 429);
    assert.match(problem.detail, /already holds 64 writes in flight/);
    // A model admission is a write of the same run: refused the same way, nothing booked.
    const admission = await h.api.call('POST', `/v1/sessions/${greedy.session_id}/model-requests`, {
      token: greedy.session_token,
      body: {
        request_id: 'r1',
        model: 'claude-fake-1',
        max_output_tokens: 10,
        input: { messages: [{ role: 'user', content: 'hi' }] },
      },
    });
    assert.equal(admission.status, 429);
    const booked = await h.db.query('select 1 from model_reservations where session_id = $1', [
      greedy.session_id,
    ]);
    assert.equal(booked.rowCount, 0);

    // Another run's call, meanwhile, is decided as usual.
    const started = Date.now();
    const answer = await expectStatus(toolCall(h.api, other, 'c1', read(2)), 200);
    assert.equal(answer.decision, 'allow');
    const otherMs = Date.now() - started;
    assert.ok(otherMs < 30_000, `another run waited ${otherMs} ms`);

    for (const socket of sockets) socket.destroy();
    const after = await until(200, () => toolCall(h.api, greedy, 'after', read(3)));
    assert.equal(after.status, 200);
    // Refused writes recorded nothing: the only calls of the greedy run are the one after.
    const calls = await h.db.query<{ tool_call_id: string }>(
      'select tool_call_id from tool_calls where session_id = $1',
      [greedy.session_id],
    );
    assert.deepEqual(
      calls.rows.map((r) => r.tool_call_id),
      ['after'],
    );
  });

  test("a runner's gate client refused at the cap sends the call again, and is decided once a write ends", async () => {
    const run = await createRun(h.api, h.seed);
    const sockets = await stalledWrites(run, 1);
    const client = new GateClient({
      baseUrl: h.api.url,
      sessionId: run.session_id,
      sessionToken: run.session_token,
    });
    const deciding = client.decide('patient', read(1));
    await new Promise((resolve) => setTimeout(resolve, 500));
    sockets[0]?.destroy();
    const answer = await deciding;
    assert.equal(answer.decision, 'allow');
  });

  test('a burst of 300 concurrent PUTs from one run: each is decided (sent again after a 503, as a runner does) or refused 429 (recording nothing), and another run is answered meanwhile', async (t) => {
    const greedy = await createRun(h.api, h.seed);
    const other = await createRun(h.api, h.seed);
    // The burst comes from a runner process of its own, as it would: 300 clients in the API's
    // own process would make the API's loop do their work too (connecting, reading answers).
    const burst = burstFromAnotherProcess(
      h.api.app.server,
      {
        url: h.api.url,
        sessionId: greedy.session_id,
        sessionToken: greedy.session_token,
        count: 300,
        prefix: 'b',
        body: read,
      },
      // Another run's call is sent once the burst is at the API: more of it than one run may hold.
      callerLimits.writes * 2,
    );
    await burst.sent;
    const started = Date.now();
    // Sent again after a 503, as a runner does: a machine running another suite beside this one
    // may turn a request away for a moment; what is bounded is the time it takes to be decided.
    // Never a 429: the greedy run's writes hold its own slots, not another run's.
    let first = await toolCall(h.api, other, 'c1', read(0));
    while (first.status === 503 && Date.now() - started < 30_000) {
      await new Promise((resolve) => setTimeout(resolve, 250));
      first = await toolCall(h.api, other, 'c1', read(0));
    }
    const otherAnswer = await expectStatus(Promise.resolve(first), 200);
    assert.equal(otherAnswer.decision, 'allow');
    const otherMs = Date.now() - started;
    assert.ok(otherMs < 30_000, `another run waited ${otherMs} ms`);
    // A call a loaded gate could not answer in time (503) was taken: sent again, as a runner
    // does, it re-attaches to its one decision.
    const statuses = await Promise.all(
      (await burst.answers).map(async (status, i) =>
        status === 503
          ? (await untilAnswered(() => toolCall(h.api, greedy, `b${i}`, read(i)))).status
          : status,
      ),
    );
    const decided = statuses.filter((status) => status === 200);
    const refused = statuses.filter((status) => status === 429);
    assert.equal(
      decided.length + refused.length,
      statuses.length,
      `statuses: ${statuses.join(',')}`,
    );
    assert.ok(decided.length >= callerLimits.writes, `${decided.length} of 300 decided`);
    const calls = await h.db.query<{ decision: string }>(
      `select decision from tool_calls where session_id = $1`,
      [greedy.session_id],
    );
    assert.equal(calls.rowCount, decided.length);
    for (const call of calls.rows) assert.equal(call.decision, 'allow');
    await t.annotate(`${refused.length} of 300 refused; another run answered in ${otherMs} ms`);
  });
});

describe('the slots', () => {
  test('model requests have a cap of their own (16): the 17th of a run is refused, another run and other kinds are not', () => {
    const slots = new CallerSlots();
    const releases = Array.from({ length: callerLimits.model }, () => slots.take('model', 'run:a'));
    assert.throws(() => slots.take('model', 'run:a'), { status: 429 });
    assert.doesNotThrow(() => slots.take('model', 'run:b'));
    assert.doesNotThrow(() => slots.take('writes', 'run:a'));
    releases[0]?.();
    assert.doesNotThrow(() => slots.take('model', 'run:a'));
  });

  test('a slot held for a response is given back when the response closes, however it ends', () => {
    const slots = new CallerSlots();
    const responses = Array.from(
      { length: callerLimits.model },
      () => new ServerResponse(new IncomingMessage(new Socket())),
    );
    for (const res of responses) slots.holdFor(res, 'model', 'run:a');
    assert.throws(() => slots.take('model', 'run:a'), { status: 429 });
    responses[0]?.emit('close');
    responses[0]?.emit('close');
    slots.holdFor(responses[0]!, 'model', 'run:a');
    assert.throws(() => slots.take('model', 'run:a'), { status: 429 });
  });
});
