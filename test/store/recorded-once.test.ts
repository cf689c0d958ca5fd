/**
 * A call's record and its decision, each written with its ledger event in one statement once the
 * session's ledger has a head, and by the locked path when a writer finds the call there: however
 * many writers race, the call is recorded once and decided once, with one event each, and the
 * session's chain verifies.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'vitest';
import { asRunId, asSessionId, asToolCallId } from '../../src/domain/gate/ids.js';
import type { GateDecision } from '../../src/domain/gate/vocabulary.js';
import { ChainVerifier } from '../../src/domain/ledger/hash-chain.js';
import { recordDecision } from '../../src/store/decisions.js';
import { readCallEvents, readChainedEvents, readStreamHead } from '../../src/store/ledger.js';
import { recordToolCallRequest } from '../../src/store/tool-calls.js';
import { useHarness } from '../support/harness.js';
import { createRun } from '../support/seed.js';
import { useStorePool } from '../support/store-pool.js';

const h = useHarness();
const store = useStorePool();

const allow = (rule: string): GateDecision => ({
  answer: { status: 'decided', decision: 'allow', reason: `allowed by ${rule}`, rule_id: rule },
  stage: 'policy',
  verdict: 'allow',
});

async function verdictOf(stream: string) {
  const verifier = new ChainVerifier();
  for (const event of await readChainedEvents(store.pool, stream, 0, 1000)) {
    assert.ok(verifier.check({ ...event, stream_id: stream }), `seq ${String(event.seq)} breaks`);
  }
  return verifier.verdict(await readStreamHead(store.pool, stream));
}

describe('a call recorded once and decided once, whichever path each writer takes', () => {
  test('eight requests of one call and eight decisions of it at once: one row, one tool.requested, one tool.decision, every writer told the first decision', async () => {
    const run = await createRun(h.api, h.seed);
    const sessionId = asSessionId(run.session_id);
    const toolCallId = asToolCallId('c-raced');
    const call = {
      sessionId,
      toolCallId,
      runId: asRunId(run.run_id),
      tool: 'Read',
      arguments: { path: 'README.md' },
      execute: false,
      requestDigest: 'digest-of-the-request',
      frozen: true,
      awaitsResult: false,
    };
    const rows = await Promise.all(
      Array.from({ length: 8 }, () => recordToolCallRequest(store.pool, call)),
    );
    assert.ok(rows.every((row) => row.request_digest === call.requestDigest));
    const decided = { session_id: sessionId, tool_call_id: toolCallId, tool: 'Read' };
    const answers = await Promise.all(
      Array.from({ length: 8 }, (_, n) =>
        recordDecision(store.pool, decided, allow(`rule-${String(n)}`)),
      ),
    );
    assert.equal(new Set(answers.map((answer) => answer.rule_id)).size, 1);
    const events = await readCallEvents(store.pool, sessionId, toolCallId);
    assert.deepEqual(
      events.map((event) => event.type),
      ['tool.requested', 'tool.decision'],
    );
    assert.equal(events[1]?.data.rule_id, answers[0]?.rule_id);
    assert.ok((await verdictOf(sessionId)).ok);
  });

  test('requests of a run at once with its revocation: the run is locked before the ledger head by both, so neither waits on the other in a cycle', async () => {
    const run = await createRun(h.api, h.seed);
    const sessionId = asSessionId(run.session_id);
    const request = (id: string) => ({
      sessionId,
      toolCallId: asToolCallId(id),
      runId: asRunId(run.run_id),
      tool: 'Read',
      arguments: { path: id },
      execute: false,
      requestDigest: `digest-${id}`,
      frozen: true,
      awaitsResult: false,
    });
    // The session's ledger has its head: the one-statement path.
    await recordToolCallRequest(store.pool, request('c-first'));
    // As a revocation takes them: the run's row, then (the requests queued meanwhile) the head.
    const revocation = await store.pool.connect();
    try {
      await revocation.query('begin');
      await revocation.query('select 1 from runs where id = $1 for update', [run.run_id]);
      const requests = Promise.all(
        ['c-1', 'c-2', 'c-3', 'c-4'].map((id) => recordToolCallRequest(store.pool, request(id))),
      );
      requests.catch(() => undefined);
      await new Promise((resolve) => setTimeout(resolve, 300));
      await revocation.query('select 1 from ledger_streams where stream_id = $1 for update', [
        sessionId,
      ]);
      await revocation.query('commit');
      const rows = await requests;
      assert.equal(rows.length, 4);
    } finally {
      revocation.release();
    }
    assert.ok((await verdictOf(sessionId)).ok);
  });

  test('a call sent again while another writer changes its row (its result being recorded): the request reads the row without the session head, so it answers while the writer holds the row, and the writer then takes the head', async () => {
    const run = await createRun(h.api, h.seed);
    const sessionId = asSessionId(run.session_id);
    const call = {
      sessionId,
      toolCallId: asToolCallId('c-changing'),
      runId: asRunId(run.run_id),
      tool: 'Read',
      arguments: { path: 'c-changing' },
      execute: false,
      requestDigest: 'digest-of-c-changing',
      frozen: true,
      awaitsResult: false,
    };
    await recordToolCallRequest(store.pool, call);
    // As a brokered result is recorded: the call's row changed, then (later) the session's head.
    const writer = await store.pool.connect();
    try {
      await writer.query('begin');
      await writer.query(
        `update tool_calls set answer = answer where session_id = $1 and tool_call_id = $2`,
        [sessionId, call.toolCallId],
      );
      const resent = recordToolCallRequest(store.pool, call);
      resent.catch(() => undefined);
      const first = await Promise.race([
        resent,
        new Promise<'waiting'>((resolve) =>
          setTimeout(() => {
            resolve('waiting');
          }, 10_000),
        ),
      ]);
      assert.ok(first !== 'waiting', 'the request sent again waited on the row under the head');
      assert.equal(first.request_digest, call.requestDigest);
      await writer.query('select 1 from ledger_streams where stream_id = $1 for update', [
        sessionId,
      ]);
      await writer.query('commit');
    } finally {
      writer.release();
    }
    assert.ok((await verdictOf(sessionId)).ok);
  });
});
