import type { Pool } from '../store/pool.js';
import { capabilityStage } from './capability.js';
import { recordDecisionActivity } from './decision.js';
import { FrozenRuns } from './frozen-runs.js';
import { policyStage } from './policy.js';
import { trustTierStage } from './trust-tier.js';

export interface ActivityDeps {
  pool: Pool;
}

/** Every activity the gate workflow calls, bound to its dependencies. */
export function createActivities({ pool }: ActivityDeps) {
  const frozen = new FrozenRuns(pool);
  return {
    capability: capabilityStage(frozen),
    trustTier: trustTierStage(frozen),
    policy: policyStage(frozen),
    recordDecision: recordDecisionActivity(pool),
  };
}

export type GateActivities = ReturnType<typeof createActivities>;
