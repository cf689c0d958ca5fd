import { faultDelayMs, faultFailure } from '../faults.js';
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

/** An activity as a test's injected faults shape it (see src/faults.ts); itself otherwise. */
function withInjectedFaults<A extends unknown[], R>(
  name: string,
  activity: (...args: A) => Promise<R>,
) {
  const delayMs = faultDelayMs(name);
  const failure = faultFailure(name);
  if (delayMs === 0 && failure === undefined) return activity;
  return async (...args: A): Promise<R> => {
    if (delayMs > 0) await new Promise((resolve) => setTimeout(resolve, delayMs));
    if (failure !== undefined) throw new Error(failure);
    return activity(...args);
  };
}

/** Every activity the gate workflow calls, bound to its dependencies. */
export function createActivities({ pool, publicUrl, sealer }: ActivityDeps) {
  const frozen = new FrozenRuns(pool);
  const approval = approvalActivities(pool, frozen, publicUrl);
  return {
    budget: withInjectedFaults('budget', budgetStage(pool)),
    capability: withInjectedFaults('capability', capabilityStage(frozen, pool)),
    schema: withInjectedFaults('schema', schemaStage(frozen)),
    trustTier: withInjectedFaults('trustTier', trustTierStage(frozen)),
    policy: withInjectedFaults('policy', policyStage(frozen)),
    recordDecision: withInjectedFaults('recordDecision', recordDecisionActivity(pool)),
    requestApproval: approval.requestApproval,
    checkApproval: approval.checkApproval,
    expireApproval: approval.expireApproval,
    broker: withInjectedFaults('broker', brokerActivity(pool, frozen, sealer)),
  };
}

export type GateActivities = ReturnType<typeof createActivities>;
