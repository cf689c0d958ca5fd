/**
 * What every gate activity reports, from one interceptor so the activities stay plain loaders:
 * the request id (from the header the workflow sets) on each of its log lines, one log line
 * when it ends, and the gate's metrics through the worker's Temporal metric meter. Only names,
 * outcomes and durations leave here: never arguments, results, reasons or credentials.
 */
import { performance } from 'node:perf_hooks';
import { defaultPayloadConverter, type MetricMeter } from '@temporalio/common';
import { Runtime, type ActivityInterceptorsFactory } from '@temporalio/worker';
import { evaluatedStages, requestIdHeader, stageFunctionOf } from '../domain/gate/vocabulary.js';
import { answerAttributes } from './gate-attributes.js';
import { annotateSpan } from './tracing.js';

const stageBuckets = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
const brokerBuckets = [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

/** The gate's histograms and their buckets (seconds), for the Prometheus exporter. */
export const durationBuckets: Record<string, readonly number[]> = {
  gate_stage_duration_seconds: stageBuckets,
  gate_brokered_call_duration_seconds: brokerBuckets,
};

/** A stage's own activity (as calls started stage by stage ran them), by the stage it is. */
const stages = new Map<string, string>(
  evaluatedStages.map((stage) => [stageFunctionOf(stage), stage]),
);

interface Reading {
  outcome: string;
  labels: Record<string, string>;
  /** The answer's fields a span may carry. */
  attributes: ReturnType<typeof answerAttributes>;
}

/** The fields of a result that may be logged and counted. */
function readingOf(result: unknown): Reading {
  const r = (result ?? {}) as Record<string, unknown>;
  // A recorded answer as such, inside an approval's state, or inside `decide`'s result.
  const inner =
    typeof r.recorded === 'object' ? r.recorded : r.status === 'decided' ? r.answer : undefined;
  const answer = (typeof inner === 'object' && inner !== null ? inner : r) as Record<
    string,
    unknown
  >;
  const text = (value: unknown) => (typeof value === 'string' ? value : '');
  return {
    outcome: text(r.outcome) || text(answer.status) || 'ok',
    labels: { decision: text(answer.decision), source: text(answer.source) },
    attributes: answerAttributes(answer),
  };
}

/** The gate's instruments, made once on the worker runtime's meter. */
function instruments(meter: MetricMeter) {
  return {
    stageDuration: meter.createHistogram(
      'gate_stage_duration_seconds',
      'float',
      's',
      'Gate stage latency by stage and outcome.',
    ),
    budgetRefusals: meter.createCounter(
      'gate_budget_refusals_total',
      '',
      'Tool calls and model requests refused for budget.',
    ),
    decisions: meter.createCounter(
      'gate_decisions_total',
      '',
      'Gate decisions by decision and deny source.',
    ),
    brokeredDuration: meter.createHistogram(
      'gate_brokered_call_duration_seconds',
      'float',
      's',
      'Brokered tool call latency.',
    ),
    brokeredErrors: meter.createCounter(
      'gate_brokered_call_errors_total',
      '',
      'Brokered tool calls that failed.',
    ),
    shadowVerdicts: meter.createCounter(
      'gate_shadow_verdicts_total',
      '',
      "Calls evaluated against their policy's shadow version, by agreement with the real verdict.",
    ),
    webhookAttempts: meter.createCounter(
      'gate_webhook_attempts_total',
      '',
      'Webhook delivery attempts by outcome.',
    ),
  };
}

let made: ReturnType<typeof instruments> | undefined;

const decidingActivities = new Set(['decide', 'recordDecision', 'checkApproval', 'expireApproval']);

function brokerFailed(result: unknown): boolean {
  return (result as { result?: { isError?: unknown } } | undefined)?.result?.isError === true;
}

/**
 * One stage's latency and outcome (`error` when it could not answer), and a budget refusal
 * when the budget stage denies: from the stages activity, or from a stage's own activity.
 */
export function observeStage(stage: string, seconds: number, outcome: string): void {
  made ??= instruments(Runtime.instance().metricMeter);
  made.stageDuration.record(seconds, { stage, outcome });
  annotateSpan({
    [`gate.stage.${stage}.duration_ms`]: seconds * 1000,
    [`gate.stage.${stage}.outcome`]: outcome,
  });
  if (stage === 'budget' && outcome === 'deny') made.budgetRefusals.add(1, { where: 'gate' });
}

/** A shadow version's verdict on a call: `agree` or `disagree` with the real one. */
export function observeShadow(agrees: boolean): void {
  made ??= instruments(Runtime.instance().metricMeter);
  made.shadowVerdicts.add(1, { agreement: agrees ? 'agree' : 'disagree' });
}

function observe(activity: string, seconds: number, result: unknown, failed: boolean): Reading {
  made ??= instruments(Runtime.instance().metricMeter);
  const reading = readingOf(result);
  const stage = stages.get(activity);
  if (stage !== undefined) observeStage(stage, seconds, failed ? 'error' : reading.outcome);
  if (decidingActivities.has(activity) && !failed && reading.labels.decision) {
    made.decisions.add(1, {
      decision: reading.labels.decision,
      source: reading.labels.source || 'none',
    });
  }
  if (activity === 'broker') {
    made.brokeredDuration.record(seconds, {});
    if (failed || brokerFailed(result)) made.brokeredErrors.add(1, {});
  }
  if (activity === 'deliverWebhook') {
    made.webhookAttempts.add(1, { outcome: failed ? 'failed' : 'delivered' });
  }
  return reading;
}

function errorSummary(err: unknown): { error: string } {
  return { error: err instanceof Error ? `${err.name}: ${err.message}`.slice(0, 300) : 'unknown' };
}

export const activityTelemetry: ActivityInterceptorsFactory = (ctx) => {
  let requestId: string | undefined;
  return {
    inbound: {
      async execute(input, next) {
        const header = input.headers[requestIdHeader];
        if (header) requestId = defaultPayloadConverter.fromPayload<string>(header);
        const activity = ctx.info.activityType;
        const started = performance.now();
        const seconds = () => (performance.now() - started) / 1000;
        try {
          const result = await next(input);
          const elapsed = seconds();
          const reading = observe(activity, elapsed, result, false);
          annotateSpan({ 'gate.outcome': reading.outcome, ...reading.attributes });
          ctx.log.debug('activity completed', {
            duration_s: elapsed,
            outcome: reading.outcome,
            ...reading.labels,
          });
          return result;
        } catch (err) {
          observe(activity, seconds(), undefined, true);
          ctx.log.warn('activity failed', errorSummary(err));
          throw err;
        }
      },
    },
    outbound: {
      getLogAttributes(input, next) {
        return next(requestId === undefined ? input : { ...input, request_id: requestId });
      },
    },
  };
};
