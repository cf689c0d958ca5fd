import assert from 'node:assert/strict';
import { test } from 'vitest';
import { TracingConfigError, tracingRequested } from '../../src/telemetry/tracing.js';

const endpoint = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318' };

test('tracing is off unless an OTLP endpoint is named, and off again when the exporter is none or the SDK disabled', () => {
  assert.equal(tracingRequested({}), false);
  assert.equal(tracingRequested({ OTEL_SERVICE_NAME: 'gate' }), false);
  assert.equal(tracingRequested(endpoint), true);
  assert.equal(
    tracingRequested({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://127.0.0.1:4318/v1/traces' }),
    true,
  );
  assert.equal(tracingRequested({ ...endpoint, OTEL_TRACES_EXPORTER: 'otlp' }), true);
  assert.equal(tracingRequested({ ...endpoint, OTEL_TRACES_EXPORTER: 'none' }), false);
  assert.equal(tracingRequested({ ...endpoint, OTEL_SDK_DISABLED: 'true' }), false);
  assert.equal(tracingRequested({ ...endpoint, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' }), true);
});

test('a setting this SDK cannot honour stops the process at start with a message naming the variable', () => {
  const cases: [Record<string, string>, RegExp][] = [
    [{ OTEL_TRACES_EXPORTER: 'console' }, /OTEL_TRACES_EXPORTER/],
    [{ OTEL_TRACES_EXPORTER: 'otlp,zipkin' }, /OTEL_TRACES_EXPORTER: .*zipkin/],
    [{ OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' }, /OTEL_EXPORTER_OTLP_PROTOCOL: .*http\/json/],
    [{ OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/protobuf' }, /OTEL_EXPORTER_OTLP_TRACES_PROTOCOL/],
  ];
  for (const [variables, message] of cases) {
    assert.throws(
      () => tracingRequested({ ...endpoint, ...variables }),
      (err: unknown) => err instanceof TracingConfigError && message.test(err.message),
    );
  }
});
