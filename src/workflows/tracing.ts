/**
 * Temporal's OpenTelemetry workflow interceptors, for the workflows a traced request started
 * (their start carries the trace header) and for no other: an untraced start, and every history
 * recorded before tracing existed, replays exactly as it ran. Decided from the start's headers,
 * so a replay decides the same.
 */
import type {
  OpenTelemetryInboundInterceptor,
  OpenTelemetryInternalsInterceptor,
  OpenTelemetryOutboundInterceptor,
} from '@temporalio/interceptors-opentelemetry/lib/workflow/index.js';
import type { WorkflowInterceptorsFactory } from '@temporalio/workflow';

/**
 * OpenTelemetry, loaded by a traced workflow only: each workflow evaluates the modules it loads
 * for itself (the SDK keeps a module cache per workflow), so a static import made every workflow
 * held in a worker's memory carry OpenTelemetry's, traced or not. Eager: in the bundle itself,
 * evaluated when first asked for.
 */
const openTelemetry = () =>
  import(/* webpackMode: "eager" */ '@temporalio/interceptors-opentelemetry/lib/workflow/index.js');

/** The header Temporal's OpenTelemetry interceptors carry a trace's context in. */
const traceHeader = '_tracer-data';

interface Traced {
  inbound: OpenTelemetryInboundInterceptor;
  outbound: OpenTelemetryOutboundInterceptor;
  internals: OpenTelemetryInternalsInterceptor;
}

export const interceptors: WorkflowInterceptorsFactory = () => {
  // Set when the workflow starts, before its first update, signal or activity.
  let traced: Traced | undefined;
  return {
    inbound: [
      {
        execute(input, next) {
          if (!(traceHeader in input.headers)) return next(input);
          return openTelemetry().then((otel) => {
            traced = {
              inbound: new otel.OpenTelemetryInboundInterceptor(),
              outbound: new otel.OpenTelemetryOutboundInterceptor(),
              internals: new otel.OpenTelemetryInternalsInterceptor(),
            };
            return traced.inbound.execute(input, next);
          });
        },
        handleSignal: (input, next) =>
          traced ? traced.inbound.handleSignal(input, next) : next(input),
        handleUpdate: (input, next) =>
          traced ? traced.inbound.handleUpdate(input, next) : next(input),
        validateUpdate(input, next) {
          if (traced) traced.inbound.validateUpdate(input, next);
          else next(input);
        },
      },
    ],
    outbound: [
      {
        scheduleActivity: (input, next) =>
          traced ? traced.outbound.scheduleActivity(input, next) : next(input),
        scheduleLocalActivity: (input, next) =>
          traced ? traced.outbound.scheduleLocalActivity(input, next) : next(input),
        getLogAttributes: (input, next) =>
          traced ? traced.outbound.getLogAttributes(input, next) : next(input),
      },
    ],
    internals: [
      {
        dispose(input, next) {
          if (traced) void traced.internals.dispose(input, next);
          else next(input);
        },
      },
    ],
  };
};
