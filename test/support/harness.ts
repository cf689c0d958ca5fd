import { after, before } from 'node:test';
import pg from 'pg';
import { startTestApi, type TestApi } from './api.js';
import { testConfig, type ConfigOverrides } from './env.js';
import { seedWorkspace, type Seed } from './seed.js';

export interface Harness {
  /** A real API on a free loopback port, against the test stack. */
  api: TestApi;
  /** A workspace with an admin, a bundle of built-in tools and a policy. */
  seed: Seed;
  /** A pool for assertions straight on the tables. */
  db: pg.Pool;
}

/**
 * Registers the hooks most test files share and returns the harness they fill: read its fields
 * inside tests, never at module load.
 */
export function useHarness(
  options: { policy?: Record<string, unknown>; api?: ConfigOverrides } = {},
): Harness {
  const harness = {} as Harness;
  before(async () => {
    harness.api = await startTestApi(options.api);
    harness.seed = await seedWorkspace(harness.api, options.policy);
    harness.db = new pg.Pool({ connectionString: testConfig().databaseUrl });
    // Some tests stop PostgreSQL on purpose; an idle client losing its connection is expected.
    harness.db.on('error', () => undefined);
  });
  after(async () => {
    await harness.api.close();
    await harness.db.end();
  });
  return harness;
}
