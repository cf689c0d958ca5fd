/**
 * Back-pressure on the ledger's event stream: a reader that stops reading is dropped, not
 * buffered for. The server writes only while the socket takes more, so what it holds for one
 * reader stays within the socket's high-water mark and one event, whatever the ledger's length;
 * after the drain bound (1.5 s here) without the reader taking anything, the stream is closed,
 * and the reader, reconnecting with Last-Event-ID, gets exactly the rest.
 */
import assert from 'node:assert/strict';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { connect } from 'node:net';
import { test } from 'vitest';
import { redact } from '../../src/domain/ledger/redaction.js';
import { appendEvent } from '../../src/store/ledger.js';
import { withTransaction } from '../../src/store/pool.js';
import { testConfig } from '../support/env.js';
import { useHarness } from '../support/harness.js';
import { createRun } from '../support/seed.js';
import { readSse } from '../support/sse.js';
import { useStorePool } from '../support/store-pool.js';

const drainMs = 1_500;
const h = useHarness({ api: { http: { ...testConfig().http, streamDrainTimeoutMs: drainMs } } });
const store = useStorePool();

/** Events of about 7 kB each (every text field at the ledger's 1,000-character cut). */
const long = (c: string) => c.repeat(1_000);
const bulky = (n: number) =>
  redact('tool.decision', {
    tool_call_id: `bulky-${n}`,
    tool: long('t'),
    decision: 'deny',
    stage: long('s'),
    source: long('o'),
    reason: long('r'),
    rule_id: long('u'),
    verdict: long('v'),
    original_verdict: long('w'),
    decided_by: long('d'),
  });

/** Complete events in an SSE text (a cut-off last one is not an event). */
function eventIds(text: string): number[] {
  return text
    .split('\n\n')
    .slice(0, -1)
    .flatMap((block) => {
      const id = /^id: (\d+)$/m.exec(block)?.[1];
      return id === undefined ? [] : [Number(id)];
    });
}

test('a reader that stops reading a long ledger is dropped after the drain bound, the server holding at most a high-water mark and one event for it; reconnecting from its last event it loses nothing', async () => {
  const run = await createRun(h.api, h.seed);
  const count = 1_500;
  for (let first = 0; first < count; first += 250) {
    await withTransaction(store.pool, async (tx) => {
      for (let n = first; n < first + 250; n += 1) await appendEvent(tx, run.session_id, bulky(n));
    });
  }
  const total = count + 1; // and run.created
  const { rows } = await h.db.query<{ bytes: number; largest: number }>(
    `select sum(length(data::text))::int as bytes, max(length(data::text))::int as largest
     from ledger_events where stream_id = $1`,
    [run.session_id],
  );
  const { bytes = 0, largest = 0 } = rows[0] ?? {};
  // Far more than loopback's socket buffers take: a stream without back-pressure would hold it.
  assert.ok(bytes > 10_000_000, `the ledger is ${bytes} bytes`);

  const path = `/v1/sessions/${run.session_id}/events/stream`;
  let response: ServerResponse | undefined;
  const capture = (request: IncomingMessage, res: ServerResponse) => {
    if (request.url === path) response = res;
  };
  h.api.app.server.on('request', capture);
  const { hostname, port } = new URL(h.api.url);
  const reader = connect(Number(port), hostname);
  reader.pause(); // never reads: the kernel's buffers fill, then the server's
  reader.write(
    `GET ${path} HTTP/1.1\r\nhost: ${hostname}\r\nauthorization: Bearer ${run.session_token}\r\n\r\n`,
  );

  let most = 0;
  let fullSince: number | undefined;
  let closedAt: number | undefined;
  const started = Date.now();
  while (closedAt === undefined && Date.now() - started < 60_000) {
    await new Promise((resolve) => setTimeout(resolve, 20));
    if (!response) continue;
    if (response.destroyed) closedAt = Date.now();
    most = Math.max(most, response.writableLength);
    if (response.writableNeedDrain) fullSince ??= Date.now();
  }
  h.api.app.server.off('request', capture);
  assert.ok(response && closedAt !== undefined, 'the server closed the stream');
  assert.ok(fullSince !== undefined, "the reader's socket filled");
  const bound = response.writableHighWaterMark + largest + 1_024;
  assert.ok(most <= bound, `the server held ${most} bytes for the reader (bound ${bound})`);
  // Dropped after the drain bound (sampled every 20 ms), not before.
  assert.ok(closedAt - fullSince >= drainMs - 100, `closed ${closedAt - fullSince} ms after full`);

  // The reader reads what reached it, then resumes from its last whole event.
  reader.setEncoding('utf8');
  let received = '';
  reader.on('data', (chunk: string) => {
    received += chunk;
  });
  reader.resume();
  await new Promise((resolve) => reader.once('close', resolve));
  const got = eventIds(received);
  assert.ok(got.length > 0 && got.length < total, `${got.length} of ${total} events`);
  assert.deepEqual(
    got,
    Array.from({ length: got.length }, (_, i) => i + 1),
  );
  const last = got.at(-1) ?? 0;
  const rest = await readSse(
    h.api.url + path,
    { authorization: `Bearer ${run.session_token}`, 'last-event-id': String(last) },
    { count: total - last, timeoutMs: 60_000 },
  );
  assert.deepEqual(
    rest.map((e) => Number(e.id)),
    Array.from({ length: total - last }, (_, i) => last + 1 + i),
  );
});
