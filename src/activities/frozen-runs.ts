import type { Pool } from '../store/pool.js';
import { findPolicyVersion, type PolicyVersion } from '../store/policies.js';
import { findRun, type FrozenRun } from '../store/runs.js';

/**
 * Frozen runs and policy versions never change, so caching them by id is always correct.
 * A bounded map in insertion order: the oldest entry goes first.
 */
class BoundedCache<V> {
  private readonly entries = new Map<string, V>();
  constructor(private readonly limit: number) {}

  async get(key: string, load: () => Promise<V | undefined>): Promise<V | undefined> {
    const hit = this.entries.get(key);
    if (hit !== undefined) return hit;
    const value = await load();
    if (value === undefined) return undefined;
    if (this.entries.size >= this.limit) {
      const oldest = this.entries.keys().next();
      if (!oldest.done) this.entries.delete(oldest.value);
    }
    this.entries.set(key, value);
    return value;
  }
}

export class FrozenRunNotFoundError extends Error {
  override name = 'FrozenRunNotFoundError';
}

export class FrozenRuns {
  private readonly runs = new BoundedCache<FrozenRun>(2_000);
  private readonly policies = new BoundedCache<PolicyVersion>(500);

  constructor(private readonly pool: Pool) {}

  async run(runId: string): Promise<FrozenRun> {
    const run = await this.runs.get(runId, () => findRun(this.pool, runId));
    if (!run) throw new FrozenRunNotFoundError(`run ${runId} does not exist`);
    return run;
  }

  async policy(run: FrozenRun): Promise<PolicyVersion> {
    const key = `${run.policy_id}@${run.policy_version}`;
    const version = await this.policies.get(key, () =>
      findPolicyVersion(this.pool, run.policy_id, run.policy_version),
    );
    if (!version) throw new FrozenRunNotFoundError(`policy version ${key} does not exist`);
    return version;
  }
}
