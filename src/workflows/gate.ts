import {
  ActivityFailure,
  allHandlersFinished,
  condition,
  proxyActivities,
  setHandler,
} from '@temporalio/workflow';
import type { GateActivities } from '../activities/index.js';
import type { DecidedAnswer, GateAnswer, GateRequest, StageOutcome } from '../domain/gate.js';
import { stateQuery, toolCallUpdate } from './messages.js';

// Stage checks retry briefly, then fail closed: a stage that cannot answer denies.
const stages = proxyActivities<GateActivities>({
  startToCloseTimeout: '10 seconds',
  retry: { initialInterval: '200 milliseconds', backoffCoefficient: 2, maximumAttempts: 3 },
});

// The decision must reach the state of record, however long PostgreSQL is away.
const recorder = proxyActivities<GateActivities>({
  startToCloseTimeout: '10 seconds',
  retry: { initialInterval: '500 milliseconds', maximumInterval: '15 seconds' },
});

/** The stages before policy, in the design document's order. */
const checks = [
  { source: 'capability', run: stages.capability },
  { source: 'trust_tier', run: stages.trustTier },
] as const;

function failedClosed(source: DenySourceOf<typeof checks> | 'policy', err: unknown): DecidedAnswer {
  const cause = err instanceof ActivityFailure ? (err.cause?.message ?? err.message) : String(err);
  return {
    status: 'decided',
    decision: 'deny',
    source,
    reason: `the ${source} stage could not decide (${cause}); failing closed`,
  };
}

type DenySourceOf<T extends readonly { source: string }[]> = T[number]['source'];

async function evaluate(request: GateRequest): Promise<DecidedAnswer> {
  for (const check of checks) {
    let outcome: StageOutcome;
    try {
      outcome = await check.run(request);
    } catch (err) {
      return failedClosed(check.source, err);
    }
    if (outcome.outcome === 'deny') {
      const { source, reason, render } = outcome;
      return { status: 'decided', decision: 'deny', source, reason, ...(render && { render }) };
    }
  }
  let policy;
  try {
    policy = await stages.policy(request);
  } catch (err) {
    return failedClosed('policy', err);
  }
  const ruleId = policy.rule_id ? { rule_id: policy.rule_id } : {};
  const by = policy.rule_id ? `rule "${policy.rule_id}"` : 'the policy default';
  if (policy.verdict === 'allow') {
    return { status: 'decided', decision: 'allow', reason: `allowed by ${by}`, ...ruleId };
  }
  if (policy.verdict === 'deny') {
    return {
      status: 'decided',
      decision: 'deny',
      source: 'policy',
      reason: `denied by ${by}`,
      ...ruleId,
    };
  }
  // Human approval comes with the approvals stage; until then an approval nobody can give is a deny.
  return {
    status: 'decided',
    decision: 'deny',
    source: 'approval',
    reason: `${by} requires approval, and no approval can be given`,
    ...ruleId,
  };
}

/** One tool call: the gate's stages in order, then the decision written to the state of record. */
export async function gate(request: GateRequest): Promise<GateAnswer> {
  let answer: GateAnswer | undefined = undefined;
  setHandler(toolCallUpdate, async () => {
    await condition(() => answer !== undefined);
    if (answer === undefined) throw new Error('woke without an answer');
    return answer;
  });
  setHandler(stateQuery, () => answer ?? { status: 'evaluating' });

  const decided = await evaluate(request);
  answer = await recorder.recordDecision(request, decided);
  await condition(allHandlersFinished);
  return answer;
}
