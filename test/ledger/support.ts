import { payload, redact } from '../../src/domain/ledger/redaction.js';

/** The n-th tool.requested event of a test stream, its arguments a digest as always. */
export const requested = (n: number) =>
  redact('tool.requested', {
    tool_call_id: `call-${n}`,
    tool: 'Read',
    execute: false,
    arguments: payload({ n }),
  });
