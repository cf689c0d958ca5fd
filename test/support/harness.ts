import { test } from 'vitest';
import pg from 'pg';
import { startTestApi, type TestApi } from './api.js';
import { testConfig, type ConfigOverrides } from './env.js';
import { seedWorkspace, type Seed } from './seed.js';

/** How many APIs nobody holds a process keeps up for the next file asking for one of them. */
const idleKept = 2;

/**
 * The APIs of one test process, by configuration. A process runs several files one after another
 * (vitest.config.ts); a file releasing its API leaves it up for the next file asking for the same
 * configuration, which saves an API start and the worker inside it (a thread that loads the SDK
 * again: ~1 s of CPU a file). Each file still has its own workspace, runs, tokens and ids. Of
 * the APIs nobody holds, the least recently released close first; the rest close with the process.
 */
class ApiShelf {
  private readonly apis = new Map<string, { api: Promise<TestApi>; users: number }>();
  /** The configurations nobody holds, least recently released first. */
  private idle: string[] = [];

  async acquire(overrides: ConfigOverrides): Promise<[TestApi, () => Promise<void>]> {
    const key = JSON.stringify(overrides);
    let entry = this.apis.get(key);
    if (!entry) {
      entry = { api: startTestApi(overrides), users: 0 };
      this.apis.set(key, entry);
    }
    const held = entry;
    held.users += 1;
    this.idle = this.idle.filter((k) => k !== key);
    const release = async () => {
      held.users -= 1;
      if (held.users > 0) return;
      this.idle.push(key);
      await Promise.all(this.idle.splice(0, this.idle.length - idleKept).map((k) => this.close(k)));
    };
    try {
      return [await held.api, release];
    } catch (error) {
      this.apis.delete(key);
      throw error;
    }
  }

  private async close(key: string): Promise<void> {
    const entry = this.apis.get(key);
    this.apis.delete(key);
    await entry?.api.then((api) => api.close()).catch(() => undefined);
  }

  async closeAll(): Promise<void> {
    this.idle = [];
    await Promise.all([...this.apis.keys()].map((key) => this.close(key)));
  }
}

/** vitest's `test` with the process's APIs as a fixture, set up once per test process. */
// eslint-disable-next-line no-empty-pattern -- vitest reads a fixture's needs off this pattern
export const apiTest = test.extend('apis', { scope: 'worker' }, ({}, { onCleanup }) => {
  const shelf = new ApiShelf();
  onCleanup(() => shelf.closeAll());
  return shelf;
});

export interface Harness {
  /** A real API on a free loopback port, against the test stack (see `ApiShelf`). */
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
  let release: () => Promise<void> = () => Promise.resolve();
  apiTest.beforeAll(async ({ apis }) => {
    [harness.api, release] = await apis.acquire(options.api ?? {});
    harness.seed = await seedWorkspace(harness.api, options.policy);
    harness.db = new pg.Pool({ connectionString: testConfig().databaseUrl });
    // Some tests stop PostgreSQL on purpose; an idle client losing its connection is expected.
    harness.db.on('error', () => undefined);
  });
  apiTest.afterAll(async () => {
    await release();
    await harness.db.end();
  });
  return harness;
}
