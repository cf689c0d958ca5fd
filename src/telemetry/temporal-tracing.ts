/**
 * Temporal's OpenTelemetry interceptors, wired to the gate's tracing: the client's spans carry
 * the request's context into the workflow's headers, the workflow's (see workflows/tracing.ts)
 * into its activities', and the worker exports the workflow's spans, made in its sandbox,
 * through a sink. Tracing off: no interceptor, and the sink drops what a traced start sends.
 */
import {
  OpenTelemetryActivityInboundInterceptor,
  OpenTelemetryActivityOutboundInterceptor,
  OpenTelemetryWorkflowClientInterceptor,
  makeWorkflowExporter,
  type OpenTelemetrySinks,
} from '@temporalio/interceptors-opentelemetry';
import type { ClientInterceptors } from '@temporalio/client';
import type { ActivityInterceptorsFactory, InjectedSinks } from '@temporalio/worker';
import { startedTracing } from './tracing.js';

/** The Temporal client's interceptors: its starts, updates and signals carry the trace. */
export function tracingClientInterceptors(): ClientInterceptors | undefined {
  return startedTracing()
    ? { workflow: [new OpenTelemetryWorkflowClientInterceptor()] }
    : undefined;
}

/** Each activity in a span under the workflow's, its log lines with the trace id. */
export function tracingActivityInterceptors(): ActivityInterceptorsFactory[] {
  if (!startedTracing()) return [];
  return [
    (ctx) => ({
      inbound: new OpenTelemetryActivityInboundInterceptor(ctx),
      outbound: new OpenTelemetryActivityOutboundInterceptor(ctx),
    }),
  ];
}

/** Where the workflow sandbox's spans go: this process's span processor, or nowhere. */
export function workflowSpanSinks(): InjectedSinks<OpenTelemetrySinks> {
  const tracing = startedTracing();
  if (tracing) return { exporter: makeWorkflowExporter(tracing.processor, tracing.resource) };
  return { exporter: { export: { fn: () => undefined } } };
}
