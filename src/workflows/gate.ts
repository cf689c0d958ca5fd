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
  evaluationOf,
  failedClosed,
  recordFailedType,
  type Decided,
  type Evaluation,
} from '../domain/gate/decisions.js';
import type {
  DecidedAnswer,
  DenySource,
  GateAnswer,
  GateDecision,
  GateRequest,
  PendingAnswer,
  PolicyRuling,
  StageOutcome,
} from '../domain/gate/vocabulary.js';
import { approvalDecidedSignal, stateQuery, toolCallUpdate } from './messages.js';
// Changes to this workflow go under a patch (see visibility.ts: the strategy, and an example).
import { visibility } from './visibility.js';

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
const decisionInOneActivity = 'stages-and-record-in-one-local-activity';

// A brokered call is claimed before the upstream is called, so a retry never calls twice. Three
// attempts bound it (three minutes at most, plus three seconds of backoff); then the failure is
// recorded as the call's result.
const brokering = proxyActivities<GateActivities>({
  startToCloseTimeout: '60 seconds',
  retry: { initialInterval: '1 second', maximumAttempts: 3 },
});

// Writes to the state of record ride out a PostgreSQL restart, for two minutes at most; then
// the gate fails closed (see `recordFailingClosed`). Local: one transaction, no round trip.
const recorder = proxyLocalActivities<GateActivities>({
  startToCloseTimeout: '10 seconds',
  scheduleToCloseTimeout: '2 minutes',
  retry: { initialInterval: '500 milliseconds', maximumInterval: '15 seconds' },
});

/** How long past an approval's expiry the pause keeps trying to settle it before it denies. */
const expiryGraceMs = 5 * 60_000;

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

/**
 * Records the decision. If it cannot be recorded within the recorder's bound (or `refused` says
 * the state of record refused it already), a plain deny is recorded in its place (what failed may
 * have been the decision's own content); if that fails too, the deny is answered unrecorded, and
 * the API records it when the call is sent again.
 */
async function recordFailingClosed(
  request: GateRequest,
  decision: GateDecision,
  refused?: unknown,
): Promise<DecidedAnswer> {
  if (refused === undefined) {
    try {
      return await recorder.recordDecision(request, decision);
    } catch (err) {
      refused = err;
    }
  }
  const fallback = failedClosed(
    decision.stage,
    `the decision could not be recorded: ${causeOf(refused)}`,
  );
  try {
    return await recorder.recordDecision(request, fallback);
  } catch {
    return fallback.answer;
  }
}

/** The stage named by a failure of the one-activity evaluation; else the first, as none passed. */
function failedSource(err: unknown): DenySource {
  // A local activity's failure reaches the workflow as itself, a regular one wrapped.
  const failure = err instanceof ActivityFailure ? err.cause : err;
  const named = failure instanceof ApplicationFailure ? failure.details?.[0] : undefined;
  return typeof named === 'string' ? (named as DenySource) : 'budget';
}

/** The stages in order, in one local activity: the first denial decides; a failing stage denies. */
async function evaluateAtOnce(request: GateRequest): Promise<Evaluation> {
  try {
    return evaluationOf(await localStages.stages(request));
  } catch (err) {
    return failedClosed(failedSource(err), causeOf(err));
  }
}

/**
 * The stages in order and their decision recorded, in one local activity. A stage that cannot
 * answer denies with its source, and a decision the activity could not write is handed back: the
 * caller records either as any decision, but a decision the state of record refused goes
 * straight to its fail-closed replacement.
 */
async function decideAtOnce(request: GateRequest): Promise<Evaluation | Decided> {
  try {
    return await localStages.decide(request);
  } catch (err) {
    const failure = err instanceof ActivityFailure ? err.cause : err;
    if (!(failure instanceof ApplicationFailure && failure.type === recordFailedType))
      return failedClosed(failedSource(err), causeOf(err));
    const [decision, retryable] = (failure.details ?? []) as [GateDecision?, boolean?];
    // A decision that did not come back whole is not guessed at: it fails closed.
    if (!decision?.answer) return failedClosed('policy', causeOf(err));
    if (retryable) return decision;
    return { recorded: await recordFailingClosed(request, decision, err) };
  }
}

/** The stages in order: the first denial decides; a stage that cannot answer denies. */
async function evaluate(request: GateRequest): Promise<Evaluation | Decided> {
  if (request.stage_activities === 'local') {
    // Histories recorded before the decision was written by the stages' activity replay the
    // stages in one activity and the recorder in another; older ones, one activity a stage.
    if (patched(decisionInOneActivity)) return decideAtOnce(request);
    if (patched(stagesInOneActivity)) return evaluateAtOnce(request);
  }
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
  return evaluationOf(policy);
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
  let pending: PendingAnswer;
  try {
    pending = await recorder.requestApproval(request, policy);
  } catch (err) {
    return recordFailingClosed(request, failedClosed('approval', causeOf(err)));
  }
  announce(pending);
  const expiresAt = Date.parse(pending.approval.expires_at);
  let woken = false;
  setHandler(approvalDecidedSignal, () => {
    woken = true;
  });
  let expiryRefused = false;
  let recheckMs = request.approval_recheck_s * 1000;
  const longestRecheckMs = (request.approval_recheck_max_s ?? request.approval_recheck_s) * 1000;
  for (;;) {
    const untilExpiry = expiresAt - Date.now();
    if (untilExpiry > 0) {
      // The signal is the way a decision arrives; the timer only bounds what a lost one costs,
      // so it backs off: ten thousand paused calls must not keep the worker busy re-reading.
      await condition(() => woken, Math.min(recheckMs, untilExpiry));
      recheckMs = Math.max(recheckMs, Math.min(recheckMs * 2, longestRecheckMs));
    } else if (expiryRefused) {
      // PostgreSQL's clock, which settles the race with people, is not there yet: no busy loop.
      await condition(() => woken, 1000);
    }
    woken = false;
    try {
      const state =
        Date.now() >= expiresAt
          ? await recorder.expireApproval(request.session_id, request.tool_call_id)
          : await recorder.checkApproval(request.session_id, request.tool_call_id);
      if (state.status === 'decided') return state.answer;
    } catch (err) {
      // Before the expiry a failed read waits for the next wake-up; long after it, fail closed.
      if (Date.now() >= expiresAt + expiryGraceMs)
        return recordFailingClosed(request, failedClosed('approval', causeOf(err)));
    }
    expiryRefused = Date.now() >= expiresAt;
    if (expiryRefused && Date.now() >= expiresAt + expiryGraceMs)
      return recordFailingClosed(
        request,
        failedClosed('approval', 'the expired approval could not be settled'),
      );
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
  const showDecision = visibility(request);

  const evaluation = await evaluate(request);
  let decided: GateAnswer;
  if ('recorded' in evaluation) {
    decided = evaluation.recorded;
  } else if ('answer' in evaluation) {
    decided = await recordFailingClosed(request, evaluation);
  } else {
    decided = await awaitApproval(request, evaluation.approval, (pending) => {
      showDecision('pending');
      answer = pending;
    });
  }
  if (decided.status === 'decided') showDecision(decided.decision);
  // An allowed brokered call with `execute` is carried out here, the credential never leaving.
  if (decided.status === 'decided' && decided.decision === 'allow' && request.execute) {
    try {
      decided = await brokering.broker(request, decided);
    } catch (err) {
      decided = brokerFailed(decided, causeOf(err));
      // Histories from before failures were recorded replay as they ran.
      if (patched('broker-failure-recorded')) {
        decided = await recorder.recordBrokerFailure(request, decided);
      }
    }
  }
  answer = decided;
  await condition(allHandlersFinished);
  return answer;
}
