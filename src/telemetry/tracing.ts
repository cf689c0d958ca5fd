/**
 * OpenTelemetry traces, configured as every OpenTelemetry SDK is: by the standard `OTEL_*`
 * variables. Unset, nothing starts: no provider is registered, the tracer is the API's no-op
 * one, and nothing in the gate wraps a query or a call. Spans carry names, ids, outcomes and
 * durations; never an argument, a result, a reason or a credential.
 */
import { SpanStatusCode, trace, type Attributes, type Span, type Tracer } from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { Resource, detectResourcesSync, envDetectorSync } from '@opentelemetry/resources';
import { BatchSpanProcessor, type SpanProcessor } from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { GateSpanExporter } from './span-export.js';
import { GateError } from '../domain/errors.js';

export class TracingConfigError extends GateError {
  override name = 'TracingConfigError';
  readonly code = 'invalid_tracing_config';
}

/** The tracing a process runs with, once started. */
interface Tracing {
  processor: SpanProcessor;
  resource: Resource;
  /** Sends what is still buffered and stops. */
  shutdown(): Promise<void>;
}

let started: Tracing | undefined;

/**
 * Whether the variables ask for traces: an OTLP endpoint is named, the exporter is OTLP (the
 * default), and the SDK is not disabled. A setting this SDK cannot honour is an error at start.
 */
export function tracingRequested(env: NodeJS.ProcessEnv = process.env): boolean {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return false;
  const exporters = (env.OTEL_TRACES_EXPORTER ?? 'otlp').split(',').map((e) => e.trim());
  if (exporters.includes('none')) return false;
  const unsupported = exporters.filter((e) => e !== 'otlp' && e !== '');
  if (unsupported.length > 0) {
    throw new TracingConfigError(
      `OTEL_TRACES_EXPORTER: only "otlp" (or "none") is supported, not "${unsupported.join(',')}"`,
    );
  }
  for (const name of ['OTEL_EXPORTER_OTLP_TRACES_PROTOCOL', 'OTEL_EXPORTER_OTLP_PROTOCOL']) {
    const protocol = env[name]?.trim();
    if (protocol && protocol !== 'http/json') {
      throw new TracingConfigError(`${name}: only "http/json" is supported, not "${protocol}"`);
    }
  }
  return Boolean(env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT || env.OTEL_EXPORTER_OTLP_ENDPOINT);
}

/**
 * Starts tracing for this process when the variables ask for it (once; later calls return the
 * same). `serviceName` is the default of `OTEL_SERVICE_NAME`.
 */
function startTracing(
  serviceName: string,
  env: NodeJS.ProcessEnv = process.env,
): Tracing | undefined {
  if (started || !tracingRequested(env)) return started;
  // OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES win over the process's own name.
  const resource = new Resource({
    'service.name': serviceName,
    ...detectResourcesSync({ detectors: [envDetectorSync] }).attributes,
  });
  // The exporter reads OTEL_EXPORTER_OTLP_* and the batch OTEL_BSP_* themselves.
  // Errors leave as the gate's sentences, never their text (./span-export.ts).
  const processor = new BatchSpanProcessor(new GateSpanExporter(new OTLPTraceExporter()));
  const provider = new NodeTracerProvider({ resource, spanProcessors: [processor] });
  provider.register();
  started = { processor, resource, shutdown: () => provider.shutdown() };
  return started;
}

/** startTracing, or a clear message and exit when the variables ask what it cannot do. */
export function startTracingOrExit(serviceName: string): Tracing | undefined {
  try {
    return startTracing(serviceName);
  } catch (err) {
    if (!(err instanceof TracingConfigError)) throw err;
    process.stderr.write(`${err.message}\n`);
    process.exit(1);
  }
}

/** Whether this process traces (startTracing started it). */
export function tracingOn(): boolean {
  return started !== undefined;
}

/** This process's tracing, when started. */
export function startedTracing(): Tracing | undefined {
  return started;
}

/** The gate's tracer: the registered provider's, or the no-op one when tracing is off. */
export function gateTracer(): Tracer {
  return trace.getTracer('fluidbox-gate');
}

/** Adds attributes to the span this code runs in, if any (none when tracing is off). */
export function annotateSpan(attributes: Attributes): void {
  trace.getActiveSpan()?.setAttributes(attributes);
}

/**
 * Runs `work` in a child span of the active one: `describe` adds what its result may say, an
 * error marks the span failed (by its name only: a message may quote a value). Off: `work` alone.
 */
export async function inSpan<T>(
  name: string,
  attributes: Attributes,
  work: () => Promise<T>,
  describe: (result: T) => Attributes = () => ({}),
): Promise<T> {
  if (!started) return work();
  return gateTracer().startActiveSpan(name, { attributes }, async (span: Span) => {
    try {
      const result = await work();
      span.setAttributes(describe(result));
      return result;
    } catch (err) {
      span.setStatus({
        code: SpanStatusCode.ERROR,
        message: err instanceof Error ? err.name : 'error',
      });
      throw err;
    } finally {
      span.end();
    }
  });
}
