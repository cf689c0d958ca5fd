/**
 * PostgreSQL frozen (every process paused) under load: calls in flight, approvals pending. It
 * bounds every answer in time, so it runs after the other files (vitest.config.ts: `outage`),
 * beside the stopped one.
 */
import { test } from 'vitest';
import { usePostgresOutageStack } from '../support/postgres-outage.js';

const stack = usePostgresOutageStack();

test('PostgreSQL frozen (every process paused) under load: no request hangs, every answer a decision or a 503 within 20 s, then each call decided once on its merits', async () => {
  let resume: () => void = () => undefined;
  try {
    await stack.rideOutPostgres({
      begin: () => {
        resume = stack.postgres.pause();
        return Promise.resolve();
      },
      end: () => {
        resume();
        return Promise.resolve();
      },
    });
  } finally {
    resume(); // a failing test leaves PostgreSQL answering for its teardown
  }
});
