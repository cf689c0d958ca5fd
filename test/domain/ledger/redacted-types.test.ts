/**
 * Type-level promises, checked by `npm run typecheck` (the @ts-expect-error lines must be errors)
 * and run as plain tests so a regression also shows here.
 */
/* eslint-disable @typescript-eslint/no-unsafe-class-instance-assignment -- forging envelopes is what this file tries */
import assert from 'node:assert/strict';
import { test } from 'vitest';
import type pg from 'pg';
import { redact, type Redacted } from '../../../src/domain/ledger/redaction.js';
import { appendEvent } from '../../../src/store/ledger.js';

function typeChecksOnly(tx: pg.PoolClient) {
  const plain = { type: 'tool.requested', data: {}, idempotencyKey: 'k' } as const;
  // @ts-expect-error a plain object is not a Redacted envelope
  void appendEvent(tx, 's', plain);
  const lookalike = plain as { type: 'tool.requested'; data: object; idempotencyKey: string };
  // @ts-expect-error nor can an object of the same public shape pass for one
  void appendEvent(tx, 's', lookalike);
  // @ts-expect-error facts of one event type are not those of another
  redact('tool.decision', { tool_call_id: 'c', tool: 'Read', execute: false, arguments: 1 });
  const ok: Redacted = redact('approval.requested', {
    tool_call_id: 'c',
    tool: 'Read',
    rule_id: null,
    expires_at: 'x',
  });
  void appendEvent(tx, 's', ok);
}

test('the type-level checks compile only because append refuses plain objects', () => {
  assert.equal(typeof typeChecksOnly, 'function');
});
