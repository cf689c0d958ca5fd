import type { Resolve } from '../broker/address-reach.js';
import type { CredentialSealer } from '../broker/sealing.js';
import type { Pool } from '../store/pool.js';
import { approvalActivities } from './approval.js';
import { brokerActivity, brokerFailureActivity } from './broker.js';
import { defaultBrokerCallsPerWorkspace, WorkspaceShares } from './workspace-shares.js';
import { budgetStage } from './budget.js';
import { capabilityStage } from './capability.js';
import { recordDecisionActivity, recordedAnswer, type AnswerRecorded } from './decision.js';
import { FrozenRuns } from './frozen-runs.js';
import { policyStage } from './policy.js';
import { schemaStage } from './schema.js';
import { decideActivity, stageActivities, stagesInOrder } from './stages.js';
import { trustTierStage } from './trust-tier.js';
import { namingUnavailability, reachingTheRecord } from './unavailability.js';
import { webhookActivities } from './webhook-delivery.js';

export interface ActivityDeps {
  pool: Pool;
  /** Where approvers reach the API, for the link in a pending answer. */
  publicUrl: string;
  /** Opens connection credentials, for brokered calls only. */
  sealer: CredentialSealer;
  /** How the broker resolves the host names of connections' servers. */
  resolve: Resolve;
  /** How many brokered calls of one workspace this process carries out at once. */
  brokerCallsPerWorkspace?: number;
  /** Told each answer recorded, after its commit (the API hands it to the waiting request). */
  onAnswerRecorded?: AnswerRecorded;
}

/** Every activity the gate workflow calls, bound to its dependencies. */
export function createActivities(deps: ActivityDeps) {
  const { pool, publicUrl, sealer, resolve, onAnswerRecorded } = deps;
  const frozen = new FrozenRuns(pool);
  const approval = approvalActivities(pool, frozen, publicUrl, onAnswerRecorded);
  const checks = {
    budget: budgetStage(pool),
    capability: capabilityStage(frozen, pool),
    schema: schemaStage(frozen),
    trustTier: trustTierStage(frozen),
    policy: policyStage(frozen, pool),
  };
  const stages = stagesInOrder(checks);
  // The writes and reads of the record name a PostgreSQL that is away, for the workflow's deny.
  const recordDecision = namingUnavailability(recordDecisionActivity(pool, onAnswerRecorded));
  return {
    // Only for a call started stage by stage, before the split: see `stageActivities`.
    ...stageActivities(checks),
    recordDecision: reachingTheRecord(recordDecision),
    decide: decideActivity(stages, recordDecision, (request) => recordedAnswer(pool, request)),
    requestApproval: reachingTheRecord(approval.requestApproval),
    checkApproval: reachingTheRecord(approval.checkApproval),
    expireApproval: reachingTheRecord(approval.expireApproval),
    broker: brokerActivity(
      { pool, sealer, resolve },
      frozen,
      new WorkspaceShares(deps.brokerCallsPerWorkspace ?? defaultBrokerCallsPerWorkspace),
    ),
    recordBrokerFailure: reachingTheRecord(brokerFailureActivity(pool)),
    ...webhookActivities(pool, sealer),
  };
}

export type GateActivities = ReturnType<typeof createActivities>;
