import {
  ActivityFailure,
  ApplicationFailure,
  allHandlersFinished,
  condition,
  proxyActivities,
  proxyLocalActivities,
  setHandler,
  TimeoutFailure,
  type ActivityOptions,
} from '@temporalio/workflow';
import type { GateActivities } from '../activities/index.js';
import {
  brokerFailed,
  decisionFromDenial,
  evaluationOf,
  failedClosed,
  failedUnavailable,
  recordFailedType,
  unavailableType,
  type Decided,
  type Evaluation,
} from '../domain/gate/decisions.js';
import {
  checkStages,
  stageFunctionOf,
  type DecidedAnswer,
  type DenySource,
  type FlatGateInput,
  type GateAnswer,
  type GateDecision,
  type GateInput,
  type GateRequest,
  type GateSettings,
  type PendingAnswer,
  type PolicyRuling,
  type StageOutcome,
} from '../domain/gate/vocabulary.js';
import { runnableInput, type RunnableInput } from './gate-input.js';
import { approvalDecidedSignal, stateQuery, toolCallUpdate } from './messages.js';
// A change to this workflow goes under a patch: docs/operations.md, "Versioning the workflow".
import { visibility } from './visibility.js';

// The stages run in one local activity (cheap reads, no task-queue round trip; see
// `npm run bench`); a stage that cannot answer in the end denies.
type Stages = ReturnType<typeof proxyActivities<GateActivities>>;

/**
 * The stages under the call's settings. Within the settings' window, a stage that cannot reach
 * its data (the activity names that failure) is tried again, every 2 s at most, while the runner
 * is answered 503 and sends the call again; any other failure is tried three times in all (the
 * activity stops it). Regular activities only for a call started stage by stage, before the split.
 */
function stagesFor(settings: GateSettings, stageByStage = false): Stages {
  const options: ActivityOptions = {
    startToCloseTimeout: '10 seconds',
    scheduleToCloseTimeout: settings.unavailable_window_s * 1000,
    retry: {
      initialInterval: '200 milliseconds',
      backoffCoefficient: 2,
      maximumInterval: '2 seconds',
    },
  };
  return stageByStage
    ? proxyActivities<GateActivities>(options)
    : proxyLocalActivities<GateActivities>(options);
}

// A brokered call is claimed before the upstream is called, so a retry never calls twice. Three
// attempts bound it (three minutes at most, plus three seconds of backoff); then the failure is
// recorded as the call's result.
const brokering = proxyActivities<GateActivities>({
  startToCloseTimeout: '60 seconds',
  retry: { initialInterval: '1 second', maximumAttempts: 3 },
});

// Writes to the state of record ride out a PostgreSQL restart, for two minutes at most; then
// the gate fails closed (see `recordFailingClosed`). Tried every 2 s at most, so a call is
// answered within seconds of PostgreSQL's return. Local: one transaction, no round trip.
const recorder = proxyLocalActivities<GateActivities>({
  startToCloseTimeout: '10 seconds',
  scheduleToCloseTimeout: '2 minutes',
  retry: { initialInterval: '500 milliseconds', maximumInterval: '2 seconds' },
});

/** How long past an approval's expiry the pause keeps trying to settle it before it denies. */
const expiryGraceMs = 5 * 60_000;

/** The stages before policy, in the design document's order, each its own activity. */
function checks(stages: Stages): readonly {
  source: DenySource;
  run: (request: GateRequest) => Promise<StageOutcome>;
}[] {
  return checkStages.map((source) => ({ source, run: stages[stageFunctionOf(source)] }));
}

function causeOf(err: unknown): string {
  if (err instanceof ActivityFailure) return err.cause?.message ?? err.message;
  return err instanceof Error ? err.message : String(err);
}

/**
 * What a broker whose every attempt failed tells the sandbox: a fixed sentence of its kind, never
 * an error's text (which may carry a server's words, an address or a credential's shape).
 */
function brokerFailureCause(err: unknown): string {
  return failureOf(err) instanceof TimeoutFailure ? 'the broker timed out' : 'the broker failed';
}

/** A local activity's failure reaches the workflow as itself, a regular one wrapped. */
function failureOf(err: unknown): unknown {
  return err instanceof ActivityFailure ? err.cause : err;
}

/** The stage a failure names (`StageFailed` and `GateUnavailable` carry it), if any. */
function stageNamed(err: unknown): DenySource | undefined {
  const failure = failureOf(err);
  const named = failure instanceof ApplicationFailure ? failure.details?.[0] : undefined;
  return typeof named === 'string' ? (named as DenySource) : undefined;
}

/**
 * The deny of an activity that failed: the gate's unavailability when it could not reach the
 * state of record in time (named so by the activity, or timed out), else the failing stage's
 * deny: the stage the failure names, else `stage`, else the first (none passed).
 */
function failedClosedBy(err: unknown, stage?: DenySource, what?: string): GateDecision {
  const failure = failureOf(err);
  const cause = what === undefined ? causeOf(err) : `${what}: ${causeOf(err)}`;
  const failing = stageNamed(err) ?? stage;
  const unreachable =
    failure instanceof TimeoutFailure ||
    (failure instanceof ApplicationFailure && failure.type === unavailableType);
  if (unreachable) return failedUnavailable(failing, cause);
  return failedClosed(failing ?? 'budget', cause);
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
  const fallback = failedClosedBy(refused, decision.stage, 'the decision could not be recorded');
  try {
    return await recorder.recordDecision(request, fallback);
  } catch {
    return fallback.answer;
  }
}

/**
 * The stages in order and their decision recorded, in one local activity. A stage that cannot
 * answer denies with its source, and a decision the activity could not write is handed back: the
 * caller records either as any decision, but a decision the state of record refused goes
 * straight to its fail-closed replacement.
 */
async function decideAtOnce(
  request: GateRequest,
  settings: GateSettings,
): Promise<Evaluation | Decided> {
  try {
    return await stagesFor(settings).decide(request);
  } catch (err) {
    const failure = failureOf(err);
    if (!(failure instanceof ApplicationFailure && failure.type === recordFailedType))
      return failedClosedBy(err);
    const [decision, retryable] = (failure.details ?? []) as [GateDecision?, boolean?];
    // A decision that did not come back whole is not guessed at: it fails closed.
    if (!decision?.answer) return failedClosed('policy', causeOf(err));
    if (retryable) return decision;
    return { recorded: await recordFailingClosed(request, decision, err) };
  }
}

/** The stages in order: the first denial decides; a stage that cannot answer denies. */
function evaluate({ call, settings, stageByStage }: RunnableInput): Promise<Evaluation | Decided> {
  return stageByStage ? evaluateStageByStage(call, settings) : decideAtOnce(call, settings);
}

/**
 * The stages of a call started stage by stage, before the split (`stage_activities: 'remote'`):
 * one regular activity a stage, each on any worker, then the recorder. No call starts so now;
 * this path stays while a call started so may still run or be replayed.
 */
async function evaluateStageByStage(
  request: GateRequest,
  settings: GateSettings,
): Promise<Evaluation | Decided> {
  const stages = stagesFor(settings, true);
  for (const check of checks(stages)) {
    let outcome: StageOutcome;
    try {
      outcome = await check.run(request);
    } catch (err) {
      return failedClosedBy(err, check.source);
    }
    if (outcome.outcome === 'deny') return decisionFromDenial(outcome);
  }
  let policy;
  try {
    policy = await stages.policy(request);
  } catch (err) {
    return failedClosedBy(err, 'policy');
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
  settings: GateSettings,
  policy: PolicyRuling,
  announce: (pending: PendingAnswer) => void,
): Promise<GateAnswer> {
  let pending: PendingAnswer;
  try {
    pending = await recorder.requestApproval(request, policy);
  } catch (err) {
    return recordFailingClosed(request, failedClosedBy(err, 'approval'));
  }
  announce(pending);
  const expiresAt = Date.parse(pending.approval.expires_at);
  let woken = false;
  setHandler(approvalDecidedSignal, () => {
    woken = true;
  });
  let expiryRefused = false;
  let recheckMs = settings.approval_recheck_s * 1000;
  const longestRecheckMs = settings.approval_recheck_max_s * 1000;
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
        return recordFailingClosed(request, failedClosedBy(err, 'approval'));
    }
    expiryRefused = Date.now() >= expiresAt;
    if (expiryRefused && Date.now() >= expiresAt + expiryGraceMs)
      return recordFailingClosed(
        request,
        failedClosed('approval', 'the expired approval could not be settled'),
      );
  }
}

/**
 * One tool call: the gate's stages in order, then the decision written to the state of record.
 * Its input is the call and its settings; a workflow started before they were split holds them
 * in one flat object, read the same way.
 */
export async function gate(input: GateInput | FlatGateInput): Promise<GateAnswer> {
  const runnable = runnableInput(input);
  const { call: request, settings } = runnable;
  let answer: GateAnswer | undefined = undefined;
  setHandler(toolCallUpdate, async () => {
    await condition(() => answer !== undefined);
    if (answer === undefined) throw new Error('woke without an answer');
    return answer;
  });
  setHandler(stateQuery, () => answer ?? { status: 'evaluating' });
  const showDecision = visibility();

  const evaluation = await evaluate(runnable);
  let decided: GateAnswer;
  if ('recorded' in evaluation) {
    decided = evaluation.recorded;
  } else if ('answer' in evaluation) {
    decided = await recordFailingClosed(request, evaluation);
  } else {
    decided = await awaitApproval(request, settings, evaluation.approval, (pending) => {
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
      decided = await recorder.recordBrokerFailure(
        request,
        brokerFailed(decided, brokerFailureCause(err)),
      );
    }
  }
  answer = decided;
  await condition(allHandlersFinished);
  return answer;
}
