import { performance } from 'node:perf_hooks';
import { ApplicationFailure, Context } from '@temporalio/activity';
import { evaluationOf, recordFailedType, type Decided } from '../domain/gate/decisions.js';
import {
  checkStages,
  evaluatedStages,
  stageFunctionOf,
  type DecidedAnswer,
  type DenySource,
  type GateDecision,
  type GateRequest,
  type PolicyOutcome,
  type StageOutcome,
} from '../domain/gate/vocabulary.js';
import { observeStage } from '../telemetry/activity-telemetry.js';
import { refusePastItsWindow, unavailableFailure } from './unavailability.js';

/** The failure type of a stage that could not answer; its details name the stage. */
const stageFailedType = 'StageFailed';

/** Attempts of a stage that fails for any reason but an unreachable state of record. */
const stageAttempts = 3;

/**
 * Why a stage could not answer, as the workflow tells the cases apart: PostgreSQL away or too
 * slow is tried again through the request's window; anything else (a bug, a run that is not
 * there) is no outage, and is tried three times in all before the stage fails closed.
 */
function stageFailure(err: unknown, source?: DenySource): ApplicationFailure {
  const unavailable = unavailableFailure(err, source);
  if (unavailable) return unavailable;
  const cause = err instanceof Error ? err.message : String(err);
  const named = source === undefined ? [] : [source];
  if (Context.current().info.attempt >= stageAttempts)
    return ApplicationFailure.nonRetryable(cause, stageFailedType, ...named);
  return ApplicationFailure.retryable(cause, stageFailedType, ...named);
}

interface StageChecks {
  budget: (request: GateRequest) => Promise<StageOutcome>;
  capability: (request: GateRequest) => Promise<StageOutcome>;
  schema: (request: GateRequest) => Promise<StageOutcome>;
  trustTier: (request: GateRequest) => Promise<StageOutcome>;
  policy: (request: GateRequest) => Promise<PolicyOutcome>;
}

/** Runs one stage, timed for the stage metrics; a stage that throws is named in the failure. */
async function named<T extends { outcome: string }>(
  source: DenySource,
  run: () => Promise<T>,
): Promise<T> {
  const started = performance.now();
  const seconds = () => (performance.now() - started) / 1000;
  try {
    const outcome = await run();
    observeStage(source, seconds(), outcome.outcome);
    return outcome;
  } catch (err) {
    observeStage(source, seconds(), 'error');
    throw stageFailure(err, source);
  }
}

/**
 * The stages as activities of their own, for a call started stage by stage before the workflow's
 * input was split (no call starts so now): registered while such a call may still run. Their
 * failures are told apart as in `decide` (their durations are the activity interceptor's).
 */
export function stageActivities(checks: StageChecks): StageChecks {
  const failingAs =
    <T>(source: DenySource, check: (request: GateRequest) => Promise<T>) =>
    async (request: GateRequest): Promise<T> => {
      try {
        return await check(request);
      } catch (err) {
        throw stageFailure(err, source);
      }
    };
  return Object.fromEntries(
    evaluatedStages.map((source) => [
      stageFunctionOf(source),
      failingAs<StageOutcome | PolicyOutcome>(source, checks[stageFunctionOf(source)]),
    ]),
  ) as unknown as StageChecks;
}

/**
 * Every cheap stage in one go, in the design document's order, for `decide`: one hand-over
 * between the workflow and its activities instead of five (each costs more than the stage's own
 * reads; see `npm run bench`). The first denial ends evaluation; a stage that throws is named in
 * the failure, so the workflow fails closed with that stage's source.
 */
export function stagesInOrder(checks: StageChecks) {
  return async function stages(request: GateRequest): Promise<PolicyOutcome> {
    for (const source of checkStages) {
      const check = checks[stageFunctionOf(source)];
      const outcome = await named(source, () => check(request));
      if (outcome.outcome === 'deny') return outcome;
    }
    return named('policy', () => checks.policy(request));
  };
}

/**
 * The stages and the recording of their decision in one local activity: the whole of an
 * undisputed call is one hand-over between the workflow and its activities. A stage that cannot
 * answer fails this activity (retried under the stages' policy, then closed by the workflow with
 * that stage's source); a decision that cannot be written is handed back, never evaluated again, for
 * the workflow's recorder to write under its own bound. An attempt after one that timed out
 * (whose transaction may have committed since) answers with what is recorded, if anything is.
 */
export function decideActivity(
  stages: (request: GateRequest) => Promise<PolicyOutcome>,
  recordDecision: (request: GateRequest, decision: GateDecision) => Promise<DecidedAnswer>,
  recordedAnswer: (request: GateRequest) => Promise<DecidedAnswer | undefined>,
) {
  return async function decide(request: GateRequest): Promise<Decided> {
    refusePastItsWindow();
    if (Context.current().info.attempt > 1) {
      const recorded = await recordedAnswer(request).catch((err: unknown) => {
        throw stageFailure(err);
      });
      if (recorded) return { recorded };
    }
    const evaluation = evaluationOf(await stages(request));
    if ('approval' in evaluation) return evaluation;
    try {
      return { recorded: await recordDecision(request, evaluation) };
    } catch (err) {
      const retryable = !(err instanceof ApplicationFailure && err.nonRetryable);
      throw ApplicationFailure.nonRetryable(
        err instanceof Error ? err.message : String(err),
        recordFailedType,
        evaluation,
        retryable,
      );
    }
  };
}
