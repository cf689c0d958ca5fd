/**
 * PostgreSQL stopped under load: calls in flight, approvals pending. It bounds every answer in
 * time, so it runs after the other files (vitest.config.ts: `outage`), beside the frozen one.
 */
import { test } from 'vitest';
import { usePostgresOutageStack } from '../support/postgres-outage.js';

const stack = usePostgresOutageStack();

test('PostgreSQL stopped (fast) under load: no process exits, every answer a decision or a 503 within 20 s, then each call decided once on its merits, past the window as the gate unavailable', async () => {
  const { postgres } = stack;
  try {
    await stack.rideOutPostgres({ begin: () => postgres.stop('fast'), end: postgres.start });
  } finally {
    await postgres.start(); // a failing test leaves PostgreSQL running for its teardown
  }
});
