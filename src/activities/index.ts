import { faultDelayMs } from '../faults.js';
import type { Pool } from '../store/pool.js';
import type { CredentialSealer } from '../broker/sealing.js';
import { approvalActivities } from './approval.js';
import { brokerActivity } from './broker.js';
import { budgetStage } from './budget.js';
import { capabilityStage } from './capability.js';
import { recordDecisionActivity } from './decision.js';
import { FrozenRuns } from './frozen-runs.js';
import { policyStage } from './policy.js';
import { schemaStage } from './schema.js';
import { trustTierStage } from './trust-tier.js';

export interface ActivityDeps {
  pool: Pool;
  /** Where approvers reach the API, for the link in a pending answer. */
  publicUrl: string;
  /** Opens connection credentials, for brokered calls only. */
  sealer: CredentialSealer;
}

/** An activity that first sleeps when a test injected a delay for it (see src/faults.ts). */
function withInjectedDelay<A extends unknown[], R>(
  name: string,
  activity: (...args: A) => Promise<R>,
) {
  const delayMs = faultDelayMs(name);
  if (delayMs === 0) return activity;
  return async (...args: A): Promise<R> => {
    await new Promise((resolve) => setTimeout(resolve, delayMs));
    return activity(...args);
  };
}

/** Every activity the gate workflow calls, bound to its dependencies. */
export function createActivities({ pool, publicUrl, sealer }: ActivityDeps) {
  const frozen = new FrozenRuns(pool);
  const approval = approvalActivities(pool, frozen, publicUrl);
  return {
    budget: withInjectedDelay('budget', budgetStage(pool)),
    capability: withInjectedDelay('capability', capabilityStage(frozen, pool)),
    schema: withInjectedDelay('schema', schemaStage(frozen)),
    trustTier: withInjectedDelay('trustTier', trustTierStage(frozen)),
    policy: withInjectedDelay('policy', policyStage(frozen)),
    recordDecision: withInjectedDelay('recordDecision', recordDecisionActivity(pool)),
    requestApproval: approval.requestApproval,
    checkApproval: approval.checkApproval,
    expireApproval: approval.expireApproval,
    broker: withInjectedDelay('broker', brokerActivity(pool, frozen, sealer)),
  };
}

export type GateActivities = ReturnType<typeof createActivities>;
