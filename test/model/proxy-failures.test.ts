import assert from 'node:assert/strict';
import { afterAll, beforeAll, describe, test } from 'vitest';
import {
  parseMessagesRequest,
  messagesInputBound,
} from '../../src/domain/budget/messages-request.js';
import { budgetOf, eventsOf, reservationsOf } from '../budget/support.js';
import { startTestApi, type TestApi } from '../support/api.js';
import { startFakeAnthropic, text, type FakeAnthropic } from '../support/fake-anthropic.js';
import { useHarness } from '../support/harness.js';
import {
  createModelRun,
  createProvider,
  drain,
  gateClient,
  proxyLimits,
  smallRequest,
} from './support.js';

const h = useHarness();
let fake: FakeAnthropic;
/** A second API whose proxied requests give up after one second without a byte. */
let impatient: TestApi;

beforeAll(async () => {
  fake = await startFakeAnthropic();
  impatient = await startTestApi({ modelProxy: proxyLimits({ idleTimeoutMs: 1000 }) });
});
afterAll(async () => {
  // The SDK stops reading a stream once it sees an error event but keeps the connection open;
  // the server would wait for it until its own timeout.
  impatient.app.server.closeAllConnections();
  await impatient.close();
  await fake.close();
});

const usage = { input_tokens: 40, output_tokens: 25 };
const maxTokens = 500;
const body = () => ({ ...smallRequest(maxTokens), stream: true });
const inputBound = (() => {
  const parsed = parseMessagesRequest(Buffer.from(JSON.stringify(body())));
  assert.ok(parsed.ok);
  return messagesInputBound(parsed.request).tokens;
})();

async function settledOnce(
  run: { run_id: string; session_id: string },
  usedTokens: number,
  outcome: string,
) {
  // The hold is settled before the client's answer ends, but a client that hung up or gave up
  // does not wait for that: poll until the one reservation is reconciled.
  const deadline = Date.now() + 15_000;
  while ((await reservationsOf(h.db, run.session_id))[0]?.status !== 'reconciled') {
    if (Date.now() > deadline) throw new Error('the reservation was never reconciled');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const budget = await budgetOf(h.db, run.run_id);
  assert.deepEqual(budget, { max_tokens: 1_000_000, held_tokens: 0, used_tokens: usedTokens });
  const reconciled = await eventsOf(h.db, run.session_id, 'model.reconciled');
  assert.equal(reconciled.length, 1);
  assert.equal(reconciled[0]!.data.outcome, outcome);
  assert.equal(reconciled[0]!.data.released_tokens, maxTokens + inputBound);
  return reconciled[0]!.data;
}

async function streamUntilError(api: TestApi, token: string) {
  try {
    await drain(await gateClient(api, token).messages.create(body() as never));
  } catch (err) {
    return err as { status?: number; message: string };
  }
  return undefined;
}

describe('every proxied request reconciles once, however it ends', () => {
  test('a client that disconnects mid-stream: the gate reads the answer to its end and settles the usage the upstream reported', async () => {
    const provider = await createProvider(h.api, h.seed, fake.url);
    const run = await createModelRun(h.api, h.seed, provider.id, 1_000_000);
    let resume!: () => void;
    const until = new Promise<void>((resolve) => {
      resume = resolve;
    });
    fake.setScript(() => ({ ...text('a long answer'), usage, pauseAt: { events: 2, until } }));
    const abort = new AbortController();
    const response = await fetch(`${h.api.url}/anthropic/v1/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': run.session_token },
      body: JSON.stringify(body()),
      signal: abort.signal,
    });
    assert.equal(response.status, 200);
    const reader = response.body!.getReader();
    const first = await reader.read();
    assert.match(Buffer.from(first.value ?? []).toString('utf8'), /message_start/);
    abort.abort();
    // The gate learns of the disconnect when its loop next turns: beside another suite 200 ms was
    // not always enough, and the stream's end came first.
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    resume();
    const data = await settledOnce(
      run,
      usage.input_tokens + usage.output_tokens,
      'client_disconnected',
    );
    assert.equal(data.output_tokens, usage.output_tokens);
  });

  test('an upstream that errors mid-stream: the client sees the error; the input reported counts, the output it never reported counts at its booking', async () => {
    const provider = await createProvider(h.api, h.seed, fake.url);
    const run = await createModelRun(h.api, h.seed, provider.id, 1_000_000);
    fake.setScript(() => ({ ...text('cut short'), usage, errorAfterEvents: 3 }));
    const error = await streamUntilError(h.api, run.session_token);
    assert.ok(error, 'the client saw no error');
    await settledOnce(run, usage.input_tokens + maxTokens, 'upstream_error');
  });

  test('an upstream that breaks its connection mid-stream: the client gets an error event; settled the same way', async () => {
    const provider = await createProvider(h.api, h.seed, fake.url);
    const run = await createModelRun(h.api, h.seed, provider.id, 1_000_000);
    // The pause lets the first events leave before the connection is destroyed.
    fake.setScript(() => ({
      ...text('cut short'),
      usage,
      pauseAt: { events: 2, until: new Promise((resolve) => setTimeout(resolve, 100)) },
      breakAfterEvents: 3,
    }));
    const error = await streamUntilError(h.api, run.session_token);
    assert.ok(error, 'the client saw no error');
    await settledOnce(run, usage.input_tokens + maxTokens, 'broken');
  });

  test('an upstream that never answers a stream: a 504 timeout_error after the idle bound, and the request it may have billed is charged its whole booking', async () => {
    const provider = await createProvider(impatient, h.seed, fake.url);
    const run = await createModelRun(impatient, h.seed, provider.id, 1_000_000);
    fake.setScript(() => ({ ...text('never'), hang: true }));
    const started = Date.now();
    const error = await streamUntilError(impatient, run.session_token);
    assert.equal(error?.status, 504);
    assert.ok(Date.now() - started < 10_000);
    await settledOnce(run, maxTokens + inputBound, 'timeout');
  });

  test('a non-streamed request past the idle bound before the upstream headers: a 504, charged its whole booking, never zero', async () => {
    const provider = await createProvider(impatient, h.seed, fake.url);
    const run = await createModelRun(impatient, h.seed, provider.id, 1_000_000);
    fake.setScript(() => ({ ...text('never'), hang: true }));
    const error = await gateClient(impatient, run.session_token)
      .messages.create(smallRequest(maxTokens) as never)
      .then(
        () => undefined,
        (err: unknown) => err as { status?: number },
      );
    assert.equal(error?.status, 504);
    await settledOnce(run, maxTokens + inputBound, 'timeout');
  });

  test('an upstream that stalls mid-stream: the client gets a timeout error event; the reported input counts, the output at its booking', async () => {
    const provider = await createProvider(impatient, h.seed, fake.url);
    const run = await createModelRun(impatient, h.seed, provider.id, 1_000_000);
    fake.setScript(() => ({
      ...text('stalls'),
      usage,
      pauseAt: { events: 2, until: new Promise(() => undefined) },
    }));
    const error = await streamUntilError(impatient, run.session_token);
    assert.ok(error, 'the client saw no error');
    await settledOnce(run, usage.input_tokens + maxTokens, 'timeout');
  });

  test('an upstream error status passes through as it came and books nothing; a refused provider key is a 502 for the operator', async () => {
    const provider = await createProvider(h.api, h.seed, fake.url);
    const run = await createModelRun(h.api, h.seed, provider.id, 1_000_000);
    fake.setScript(() => ({ ...text('no'), status: 529 }));
    const overloaded = await streamUntilError(h.api, run.session_token);
    assert.equal(overloaded?.status, 529);
    await settledOnce(run, 0, 'refused');

    const other = await createModelRun(h.api, h.seed, provider.id, 1_000_000);
    fake.setScript(() => ({ ...text('no'), status: 401 }));
    const refused = await streamUntilError(h.api, other.session_token);
    assert.ok(refused);
    assert.equal(refused.status, 502);
    assert.match(refused.message, /refused the gate's credential/);
    await settledOnce(other, 0, 'refused');
  });

  test('an unreachable provider (the request never left the gate): a 502 and the whole hold released', async () => {
    const closed = await startFakeAnthropic();
    await closed.close();
    const provider = await createProvider(h.api, h.seed, closed.url);
    const run = await createModelRun(h.api, h.seed, provider.id, 1_000_000);
    const error = await streamUntilError(h.api, run.session_token);
    assert.equal(error?.status, 502);
    await settledOnce(run, 0, 'unreachable');
  });
});
