/**
 * What leaves the process in a span, whoever recorded it (the gate, Temporal's interceptors, a
 * library): an error as the gate's own sentence, never its text (an activity's error, or a
 * library's, may quote a value, an upstream server's words or an address; its type says what
 * happened); and no workflow search attributes, which carry the runner's tool name as sent.
 */
import type { ExportResult } from '@opentelemetry/core';
import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace-base';

/** The sentence a failure of `type` (an error's name) is exported as. */
function failureSentence(type: unknown): string {
  const name = typeof type === 'string' && /^[A-Za-z][\w.$]{0,99}$/.test(type) ? type : 'Error';
  return `the operation failed (${name})`;
}

/** Attributes Temporal's interceptors copy from a workflow's start options. */
const dropped = new Set(['searchAttributes', 'typedSearchAttributes']);

function forExport(span: ReadableSpan): ReadableSpan {
  const exception = span.events.find((event) => event.name === 'exception');
  const type = exception?.attributes?.['exception.type'];
  const events = span.events.map((event) => {
    if (event.name !== 'exception' || !event.attributes) return event;
    const attributes = { ...event.attributes };
    attributes['exception.message'] = failureSentence(attributes['exception.type']);
    delete attributes['exception.stacktrace'];
    return { ...event, attributes };
  });
  const status =
    span.status.message === undefined
      ? span.status
      : { ...span.status, message: failureSentence(type) };
  const attributes = Object.fromEntries(
    Object.entries(span.attributes).filter(([key]) => !dropped.has(key)),
  );
  // The span's own fields and methods stay; only these read anew.
  return Object.create(span, {
    status: { value: status, enumerable: true },
    events: { value: events, enumerable: true },
    attributes: { value: attributes, enumerable: true },
  }) as ReadableSpan;
}

/** An exporter that sends each span as `forExport` leaves it. */
export class GateSpanExporter implements SpanExporter {
  constructor(private readonly inner: SpanExporter) {}

  export(spans: ReadableSpan[], resultCallback: (result: ExportResult) => void): void {
    this.inner.export(spans.map(forExport), resultCallback);
  }

  shutdown(): Promise<void> {
    return this.inner.shutdown();
  }

  forceFlush(): Promise<void> {
    return this.inner.forceFlush?.() ?? Promise.resolve();
  }
}
