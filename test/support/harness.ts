import { afterAll, beforeAll } from 'vitest';
import pg from 'pg';
import { startTestApi, type TestApi } from './api.js';
import { testConfig, type ConfigOverrides } from './env.js';
import { seedWorkspace, type Seed } from './seed.js';

/**
 * A test process runs several files one after another, keeping its modules (vitest.config.ts):
 * a file releasing its API leaves it up for a moment, for the next file asking for the same
 * configuration. Each file still has its own workspace, runs, tokens and ids; what it saves is an
 * API start and the worker inside it (a thread that loads the SDK again: ~1 s of CPU a file).
 */
const idleApis = new Map<
  string,
  { api: Promise<TestApi>; users: number; closing?: NodeJS.Timeout }
>();
const idleForMs = 1_500;

async function acquireApi(overrides: ConfigOverrides = {}): Promise<[TestApi, () => void]> {
  const key = JSON.stringify(overrides);
  let entry = idleApis.get(key);
  if (!entry) {
    entry = { api: startTestApi(overrides), users: 0 };
    idleApis.set(key, entry);
  }
  const held = entry;
  clearTimeout(held.closing);
  held.users += 1;
  const release = () => {
    held.users -= 1;
    if (held.users > 0) return;
    held.closing = setTimeout(() => {
      idleApis.delete(key);
      void held.api.then((api) => api.close());
    }, idleForMs);
  };
  try {
    return [await held.api, release];
  } catch (error) {
    idleApis.delete(key);
    throw error;
  }
}

export interface Harness {
  /** A real API on a free loopback port, against the test stack (see `acquireApi`). */
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
  let release: () => void = () => undefined;
  beforeAll(async () => {
    [harness.api, release] = await acquireApi(options.api);
    harness.seed = await seedWorkspace(harness.api, options.policy);
    harness.db = new pg.Pool({ connectionString: testConfig().databaseUrl });
    // Some tests stop PostgreSQL on purpose; an idle client losing its connection is expected.
    harness.db.on('error', () => undefined);
  });
  afterAll(async () => {
    release();
    await harness.db.end();
  });
  return harness;
}
