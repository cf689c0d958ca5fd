/**
 * The HTTP server bounds what a client may hold: headers that never finish and bodies that stop
 * or crawl are cut within their bounds, while answers that legitimately stay silent longer than
 * the idle bound (a `?wait=`, an event stream, a model request whose upstream is slow) are not.
 * Here: headers 1 s, the whole request 4 s, idle 2.5 s (past the headers bound and its slack, so
 * each case has one cause); Node looks for requests past their bounds every second.
 */
import assert from 'node:assert/strict';
import { afterAll, beforeAll, describe, test } from 'vitest';
import { useHarness } from '../support/harness.js';
import { startFakeAnthropic, text, type FakeAnthropic } from '../support/fake-anthropic.js';
import { rawConnection, requestHead } from '../support/raw-http.js';
import { askForBash, createRun, expectStatus, toolCallUntilAnswered } from '../support/seed.js';
import { readSse } from '../support/sse.js';
import {
  createModelRun,
  createProvider,
  drain,
  gateClient,
  smallRequest,
} from '../model/support.js';

const bounds = {
  headersTimeoutMs: 1_000,
  requestTimeoutMs: 4_000,
  idleTimeoutMs: 2_500,
  keepAliveTimeoutMs: 5_000,
  streamDrainTimeoutMs: 30_000,
};
/** Node checks for requests past their bounds this often: the bounds' slack. */
const checkMs = 1_000;
/** Longer than the idle bound: how long the answers below stay silent. */
const silenceMs = 4_000;

const h = useHarness({ api: { http: bounds }, policy: askForBash });
let fake: FakeAnthropic;
beforeAll(async () => {
  fake = await startFakeAnthropic();
});
afterAll(async () => {
  await fake.close();
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

// Each case holds a connection and a run of its own: the cases wait out their bounds side by side.
describe.concurrent('a client that stalls is cut within a bound', () => {
  test('a connection that sends nothing, or headers that never end, is answered 408 and closed within the headers bound (1 s, + 1 s slack)', async () => {
    const [silent, partial] = await Promise.all([
      rawConnection(h.api.url, () => undefined),
      rawConnection(h.api.url, (socket) => {
        socket.write('GET /healthz HTTP/1.1\r\nhost: 127.0.0.1\r\nx-slow: ');
      }),
    ]);
    for (const closing of [silent, partial]) {
      assert.match(closing.received, /^HTTP\/1\.1 408 /);
      assert.ok(closing.closedAfterMs >= bounds.headersTimeoutMs - 100, `${closing.closedAfterMs}`);
    }
  });

  test('a body that stops after a few bytes is cut within the idle bound (2.5 s after its last byte), and nothing of it is recorded', async () => {
    const run = await createRun(h.api, h.seed);
    const path = `/v1/sessions/${run.session_id}/tool-calls/stalled`;
    const closing = await rawConnection(h.api.url, (socket) => {
      socket.write(requestHead('PUT', path, run.session_token, 200));
      socket.write('{"tool": "Re');
    });
    assert.ok(closing.closedAfterMs >= bounds.idleTimeoutMs - 100, `${closing.closedAfterMs}`);
    // Cut by the idle bound, which closes without an answer, not by the request bound's 408: told
    // apart by what was sent rather than by when, which a loaded machine moves.
    assert.equal(closing.received, '', `${closing.closedAfterMs} ms: ${closing.received}`);
    const rows = await h.db.query('select 1 from tool_calls where session_id = $1', [
      run.session_id,
    ]);
    assert.equal(rows.rowCount, 0);
  });

  test('a body that crawls, a byte within every idle bound, is still cut at the request bound (4 s, + 1 s slack) with a 408', async () => {
    const run = await createRun(h.api, h.seed);
    const path = `/v1/sessions/${run.session_id}/tool-calls/crawling`;
    const closing = await rawConnection(h.api.url, (socket) => {
      socket.write(requestHead('PUT', path, run.session_token, 10_000));
      const timer = setInterval(() => {
        socket.write(' ');
      }, 300);
      socket.on('close', () => {
        clearInterval(timer);
      });
    });
    assert.match(closing.received, /^HTTP\/1\.1 408 /);
    assert.ok(closing.closedAfterMs >= bounds.requestTimeoutMs - 100, `${closing.closedAfterMs}`);
    // Catastrophic only: five times the bound and its slack; the crawl alone would last an hour.
    assert.ok(closing.closedAfterMs < (bounds.requestTimeoutMs + checkMs) * 5);
  });
});

describe.concurrent('answers that are silent longer than the idle bound are not cut', () => {
  test('a ?wait= on a pending call waits its full 4 s and answers', async () => {
    const run = await createRun(h.api, h.seed);
    await expectStatus(
      toolCallUntilAnswered(h.api, run, 'c1', { tool: 'Bash', arguments: {} }),
      202,
    );
    const started = Date.now();
    const state = await expectStatus(
      h.api.call('GET', `/v1/sessions/${run.session_id}/tool-calls/c1?wait=${silenceMs / 1000}`, {
        token: run.session_token,
      }),
      202,
    );
    assert.equal(state.status, 'pending_approval');
    assert.ok(Date.now() - started >= silenceMs - 100);
  });

  test('an event stream silent for 4 s still delivers the next event', async () => {
    const run = await createRun(h.api, h.seed);
    await expectStatus(
      toolCallUntilAnswered(h.api, run, 'c1', { tool: 'Bash', arguments: {} }),
      202,
    );
    // run.created, tool.requested, approval.requested now; two more once it is decided.
    const reading = readSse(
      `${h.api.url}/v1/sessions/${run.session_id}/events/stream`,
      { authorization: `Bearer ${run.session_token}` },
      { count: 5, timeoutMs: 30_000 },
    );
    await sleep(silenceMs);
    await expectStatus(
      h.api.call('POST', `/v1/approvals/${run.session_id}/c1/decision`, {
        token: h.seed.admin.token,
        body: { decision: 'approve' },
      }),
      200,
    );
    const events = await reading;
    assert.deepEqual(
      events.map((e) => e.event),
      ['run.created', 'tool.requested', 'approval.requested', 'approval.decided', 'tool.decision'],
    );
  });

  test('a model request whose upstream is silent for 4 s, streamed or not, is answered whole', async () => {
    const provider = await createProvider(h.api, h.seed, fake.url);
    const run = await createModelRun(h.api, h.seed, provider.id, 100_000);
    const client = gateClient(h.api, run.session_token);

    fake.setScript(() => ({ ...text('slow'), delayMs: silenceMs }));
    const message = await client.messages.create(smallRequest() as never);
    assert.equal((message.content[0] as { text: string }).text, 'slow');

    fake.setScript(() => ({ ...text('paused'), pauseAt: { events: 1, until: sleep(silenceMs) } }));
    const events = await drain(
      await client.messages.create({ ...smallRequest(), stream: true } as never),
    );
    assert.ok(events >= 4, `${events} events`);
  });
});

test('the API is fine afterwards: it answers, and a runner is decided as before', async () => {
  await expectStatus(h.api.call('GET', '/healthz'), 200);
  const run = await createRun(h.api, h.seed);
  const answer = await expectStatus(
    toolCallUntilAnswered(h.api, run, 'c1', { tool: 'Read', arguments: { file_path: 'a' } }),
    200,
  );
  assert.equal(answer.decision, 'allow');
});
