/** PostgreSQL stopped under load: calls in flight, approvals pending (test/support/postgres-outage.ts). */
import { test } from 'vitest';
import { usePostgresOutageStack } from '../support/postgres-outage.js';

const stack = usePostgresOutageStack();

test('PostgreSQL stopped (fast) under load: no process exits, every answer a decision or a 503 within 10 s, then each call decided once on its merits, past the window as the gate unavailable', async () => {
  const postgres = stack.postgres();
  try {
    await stack.rideOutPostgres({ begin: () => postgres.stop('fast'), end: postgres.start });
  } finally {
    await postgres.start(); // a failing test leaves PostgreSQL running for its file's close
  }
});
