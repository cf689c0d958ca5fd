import type { RunId } from '../domain/gate/ids.js';
import type { CalledTool } from '../domain/gate/stage-verdicts.js';
import type { GateRequest } from '../domain/gate/vocabulary.js';
import type { FrozenTool } from '../domain/tools/tools.js';
import type { Pool } from '../store/pool.js';
import { findPolicyVersion, findShadowVersion, type PolicyVersion } from '../store/policies.js';
import { findRun, type FrozenRun } from '../store/runs.js';
import { GateError } from '../domain/errors.js';

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

class FrozenRunNotFoundError extends GateError {
  override name = 'FrozenRunNotFoundError';
  readonly code = 'frozen_run_not_found';
}

/** A run with its tools indexed by name, so every stage finds the called tool the same way. */
interface IndexedRun {
  run: FrozenRun;
  tools: ReadonlyMap<string, FrozenTool>;
}

/** A gated call's frozen context: its run, and the tool it names as the run froze it. */
interface FrozenCall {
  run: FrozenRun;
  called: CalledTool;
}

/**
 * How long a policy's shadow version, which an operator may change, is read from memory: a new
 * shadow takes effect within this, and a call costs no query for it.
 */
const shadowFreshMs = 5_000;

export class FrozenRuns {
  private readonly runs = new BoundedCache<IndexedRun>(2_000);
  private readonly policies = new BoundedCache<PolicyVersion>(500);
  private readonly shadows = new Map<string, { at: number; version: Promise<number | null> }>();

  constructor(private readonly pool: Pool) {}

  private async indexed(runId: RunId): Promise<IndexedRun> {
    const entry = await this.runs.get(runId, async () => {
      const run = await findRun(this.pool, runId);
      return run && { run, tools: new Map(run.toolset.map((tool) => [tool.name, tool])) };
    });
    if (!entry) throw new FrozenRunNotFoundError(`run ${runId} does not exist`);
    return entry;
  }

  /** The one lookup of a call's frozen tool: absent when the run did not freeze that name. */
  async call(request: Pick<GateRequest, 'run_id' | 'tool'>): Promise<FrozenCall> {
    const { run, tools } = await this.indexed(request.run_id);
    return { run, called: { name: request.tool, frozen: tools.get(request.tool) } };
  }

  async policy(run: Pick<FrozenRun, 'policy_id' | 'policy_version'>): Promise<PolicyVersion> {
    const key = `${run.policy_id}@${run.policy_version}`;
    const version = await this.policies.get(key, () =>
      findPolicyVersion(this.pool, run.policy_id, run.policy_version),
    );
    if (!version) throw new FrozenRunNotFoundError(`policy version ${key} does not exist`);
    return version;
  }

  /** The policy's shadow version (its body, immutable), if it names one; read every few seconds. */
  async shadow(run: FrozenRun): Promise<PolicyVersion | undefined> {
    const now = Date.now();
    let entry = this.shadows.get(run.policy_id);
    if (!entry || now - entry.at > shadowFreshMs) {
      entry = { at: now, version: findShadowVersion(this.pool, run.policy_id) };
      // A failed read is not kept: the next call asks again.
      entry.version.catch(() => this.shadows.delete(run.policy_id));
      if (this.shadows.size >= 500 && !this.shadows.has(run.policy_id)) this.shadows.clear();
      this.shadows.set(run.policy_id, entry);
    }
    const version = await entry.version;
    if (version === null) return undefined;
    return this.policy({ policy_id: run.policy_id, policy_version: version });
  }
}
