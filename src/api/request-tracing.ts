/**
 * One server span per request, begun before any other hook (so authentication's queries fall
 * inside it) and made the active context for the rest of the request: the Temporal client's
 * spans, and so the workflow's and the activities', are its children. Named by the route's
 * pattern, never by the URL (whose query may hold what a caller sent); a W3C `traceparent` from
 * the caller is continued. The request's log lines carry the trace id.
 */
import {
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  context,
  propagation,
  trace,
  type Span,
} from '@opentelemetry/api';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { gateTracer, tracingOn } from '../telemetry/tracing.js';

const spans = new WeakMap<FastifyRequest, Span>();

export function traceRequests(app: FastifyInstance): void {
  if (!tracingOn()) return;
  app.addHook('onRequest', (request, reply, done) => {
    const route = request.routeOptions.url ?? 'unmatched';
    const parent = propagation.extract(ROOT_CONTEXT, request.headers);
    const span = gateTracer().startSpan(
      `${request.method} ${route}`,
      {
        kind: SpanKind.SERVER,
        attributes: {
          'http.request.method': request.method,
          'http.route': route,
          'gate.request_id': request.id,
        },
      },
      parent,
    );
    spans.set(request, span);
    const { traceId, spanId } = span.spanContext();
    request.log = request.log.child({ trace_id: traceId, span_id: spanId });
    reply.log = request.log;
    context.with(trace.setSpan(parent, span), done);
  });
  const end = (request: FastifyRequest, status?: number) => {
    const span = spans.get(request);
    if (!span) return;
    spans.delete(request);
    if (status === undefined) span.setStatus({ code: SpanStatusCode.ERROR, message: 'aborted' });
    else {
      span.setAttribute('http.response.status_code', status);
      if (status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
    }
    span.end();
  };
  app.addHook('onResponse', (request, reply, done) => {
    end(request, reply.statusCode);
    done();
  });
  app.addHook('onRequestAbort', (request, done) => {
    end(request);
    done();
  });
}
