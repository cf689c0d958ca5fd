import {
  ActivityFailure,
  ApplicationFailure,
  allHandlersFinished,
  condition,
  patched,
  proxyActivities,
  proxyLocalActivities,
  setHandler,
} from '@temporalio/workflow';
import type { GateActivities } from '../activities/index.js';
import {
  brokerFailed,
  decisionFromDenial,
  decisionFromPolicy,
  failedClosed,
} from '../domain/gate/decisions.js';
import type {
  DenySource,
  GateAnswer,
  GateDecision,
  GateRequest,
  PendingAnswer,
  PolicyOutcome,
  PolicyRuling,
  StageOutcome,
} from '../domain/gate/vocabulary.js';
import { approvalDecidedSignal, stateQuery, toolCallUpdate } from './messages.js';

// Stage checks retry briefly, then fail closed: a stage that cannot answer denies. They are
// local activities by default (cheap reads, no task-queue round trip; see `npm run bench`).
const stageOptions = {
  startToCloseTimeout: '10 seconds',
  retry: { initialInterval: '200 milliseconds', backoffCoefficient: 2, maximumAttempts: 3 },
} as const;
const remoteStages = proxyActivities<GateActivities>(stageOptions);
const localStages = proxyLocalActivities<GateActivities>(stageOptions);
type Stages = typeof remoteStages;
const stagesInOneActivity = 'stages-in-one-local-activity';

// A brokered call is claimed before the upstream is called, so a retry never calls twice.
const brokering = proxyActivities<GateActivities>({
  startToCloseTimeout: '60 seconds',
  retry: { initialInterval: '1 second', maximumAttempts: 5 },
});

// The decision must reach the state of record, however long PostgreSQL is away. A local
// activity too: one PostgreSQL transaction, no task-queue round trip.
const recorder = proxyLocalActivities<GateActivities>({
  startToCloseTimeout: '10 seconds',
  retry: { initialInterval: '500 milliseconds', maximumInterval: '15 seconds' },
});

/** The stages before policy, in the design document's order. */
function checks(stages: Stages): readonly {
  source: DenySource;
  run: (request: GateRequest) => Promise<StageOutcome>;
}[] {
  return [
    { source: 'budget', run: stages.budget },
    { source: 'capability', run: stages.capability },
    { source: 'schema', run: stages.schema },
    { source: 'trust_tier', run: stages.trustTier },
  ];
}

function causeOf(err: unknown): string {
  return err instanceof ActivityFailure ? (err.cause?.message ?? err.message) : String(err);
}

type Evaluation = GateDecision | { approval: PolicyRuling };

/** The stage named by a failure of the one-activity evaluation; else the first, as none passed. */
function failedSource(err: unknown): DenySource {
  // A local activity's failure reaches the workflow as itself, a regular one wrapped.
  const failure = err instanceof ActivityFailure ? err.cause : err;
  const named = failure instanceof ApplicationFailure ? failure.details?.[0] : undefined;
  return typeof named === 'string' ? (named as DenySource) : 'budget';
}

function fromPolicy(policy: PolicyOutcome): Evaluation {
  if (policy.outcome === 'deny') return decisionFromDenial(policy);
  if (policy.verdict === 'require_approval') return { approval: policy };
  return decisionFromPolicy({ ...policy, verdict: policy.verdict });
}

/** The stages in order, in one local activity: the first denial decides; a failing stage denies. */
async function evaluateAtOnce(request: GateRequest): Promise<Evaluation> {
  try {
    return fromPolicy(await localStages.stages(request));
  } catch (err) {
    return failedClosed(failedSource(err), causeOf(err));
  }
}

/** The stages in order: the first denial decides; a stage that cannot answer denies. */
async function evaluate(request: GateRequest): Promise<Evaluation> {
  // Histories recorded before the stages ran in one local activity replay one activity a stage.
  if (request.stage_activities === 'local' && patched(stagesInOneActivity))
    return evaluateAtOnce(request);
  const stages = request.stage_activities === 'remote' ? remoteStages : localStages;
  for (const check of checks(stages)) {
    let outcome: StageOutcome;
    try {
      outcome = await check.run(request);
    } catch (err) {
      return failedClosed(check.source, causeOf(err));
    }
    if (outcome.outcome === 'deny') return decisionFromDenial(outcome);
  }
  let policy;
  try {
    policy = await stages.policy(request);
  } catch (err) {
    return failedClosed('policy', causeOf(err));
  }
  return fromPolicy(policy);
}

/**
 * The pause: the approval row is written and the runner told "pending"; then the workflow waits
 * for a wake-up signal or the re-check timer, and each time re-reads the row. A lost signal
 * costs latency, never the decision. At the expiry the row is settled with on_timeout.
 */
async function awaitApproval(
  request: GateRequest,
  policy: PolicyRuling,
  announce: (pending: PendingAnswer) => void,
): Promise<GateAnswer> {
  const pending = await recorder.requestApproval(request, policy);
  announce(pending);
  const expiresAt = Date.parse(pending.approval.expires_at);
  let woken = false;
  setHandler(approvalDecidedSignal, () => {
    woken = true;
  });
  let expiryRefused = false;
  for (;;) {
    const untilExpiry = expiresAt - Date.now();
    if (untilExpiry > 0) {
      await condition(() => woken, Math.min(request.approval_recheck_s * 1000, untilExpiry));
    } else if (expiryRefused) {
      // PostgreSQL's clock, which settles the race with people, is not there yet: no busy loop.
      await condition(() => woken, 1000);
    }
    woken = false;
    const state =
      Date.now() >= expiresAt
        ? await recorder.expireApproval(request.session_id, request.tool_call_id)
        : await recorder.checkApproval(request.session_id, request.tool_call_id);
    if (state.status === 'decided') return state.answer;
    expiryRefused = Date.now() >= expiresAt;
  }
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

  const evaluation = await evaluate(request);
  let decided: GateAnswer;
  if ('answer' in evaluation) {
    decided = await recorder.recordDecision(request, evaluation);
  } else {
    decided = await awaitApproval(request, evaluation.approval, (pending) => {
      answer = pending;
    });
  }
  // An allowed brokered call with `execute` is carried out here, the credential never leaving.
  if (decided.status === 'decided' && decided.decision === 'allow' && request.execute) {
    try {
      decided = await brokering.broker(request, decided);
    } catch (err) {
      decided = brokerFailed(decided, causeOf(err));
    }
  }
  answer = decided;
  await condition(allHandlersFinished);
  return answer;
}
