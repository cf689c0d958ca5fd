import {
  ActivityFailure,
  allHandlersFinished,
  condition,
  proxyActivities,
  setHandler,
} from '@temporalio/workflow';
import type { GateActivities } from '../activities/index.js';
import type {
  DenySource,
  GateAnswer,
  GateDecision,
  GateRequest,
  StageOutcome,
} from '../domain/gate.js';
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
const checks: readonly {
  source: DenySource;
  run: (request: GateRequest) => Promise<StageOutcome>;
}[] = [
  { source: 'capability', run: stages.capability },
  { source: 'trust_tier', run: stages.trustTier },
];

function deny(stage: DenySource, reason: string, extra: Partial<GateDecision> = {}): GateDecision {
  return {
    answer: { status: 'decided', decision: 'deny', source: stage, reason },
    stage,
    ...extra,
  };
}

function failedClosed(stage: DenySource, err: unknown): GateDecision {
  const cause = err instanceof ActivityFailure ? (err.cause?.message ?? err.message) : String(err);
  return deny(stage, `the ${stage} stage could not decide (${cause}); failing closed`);
}

async function evaluate(request: GateRequest): Promise<GateDecision> {
  for (const check of checks) {
    let outcome: StageOutcome;
    try {
      outcome = await check.run(request);
    } catch (err) {
      return failedClosed(check.source, err);
    }
    if (outcome.outcome === 'deny') {
      const decision = deny(outcome.source, outcome.reason);
      if (outcome.render) decision.answer.render = outcome.render;
      return decision;
    }
  }
  let policy;
  try {
    policy = await stages.policy(request);
  } catch (err) {
    return failedClosed('policy', err);
  }
  const trail = { verdict: policy.verdict, original_verdict: policy.original_verdict };
  const ruleId = policy.rule_id ? { rule_id: policy.rule_id } : {};
  const by = policy.rule_id ? `rule "${policy.rule_id}"` : 'the policy default';
  const rewritten =
    policy.verdict !== policy.original_verdict ? ' (autonomous fallback for require_approval)' : '';
  if (policy.verdict === 'allow') {
    return {
      answer: {
        status: 'decided',
        decision: 'allow',
        reason: `allowed by ${by}${rewritten}`,
        ...ruleId,
      },
      stage: 'policy',
      ...trail,
    };
  }
  if (policy.verdict === 'deny') {
    const decision = deny('policy', `denied by ${by}${rewritten}`, trail);
    Object.assign(decision.answer, ruleId);
    return decision;
  }
  // Human approval comes with the approvals stage; until then an approval nobody can give is a deny.
  const decision = deny('approval', `${by} requires approval, and no approval can be given`, trail);
  Object.assign(decision.answer, ruleId);
  return decision;
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

  const decision = await evaluate(request);
  answer = await recorder.recordDecision(request, decision);
  await condition(allHandlersFinished);
  return answer;
}
