/**
 * An OTLP/HTTP trace receiver in the test's process: it takes what an exporter posts to
 * `/v1/traces` (OTLP JSON), keeps each span with its service, and answers as a collector does.
 */
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

type AnyValue = {
  stringValue?: string;
  intValue?: number | string;
  doubleValue?: number;
  boolValue?: boolean;
};
interface WireAttribute {
  key: string;
  value: AnyValue;
}
interface WireSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  attributes?: WireAttribute[];
  status?: { code?: number; message?: string };
  events?: { name: string; attributes?: WireAttribute[] }[];
}
interface WireTraces {
  resourceSpans?: {
    resource?: { attributes?: WireAttribute[] };
    scopeSpans?: { spans?: WireSpan[] }[];
  }[];
}

export interface ReceivedSpan {
  service: string;
  traceId: string;
  spanId: string;
  parentSpanId: string | undefined;
  name: string;
  attributes: Record<string, string | number | boolean>;
  /** The status's message, when the span says why it failed. */
  statusMessage: string | undefined;
  events: { name: string; attributes: Record<string, string | number | boolean> }[];
}

function plain(value: AnyValue): string | number | boolean {
  if (value.stringValue !== undefined) return value.stringValue;
  if (value.intValue !== undefined) return Number(value.intValue);
  if (value.doubleValue !== undefined) return value.doubleValue;
  if (value.boolValue !== undefined) return value.boolValue;
  return JSON.stringify(value);
}

const attributesOf = (list: WireAttribute[] = []) =>
  Object.fromEntries(list.map(({ key, value }) => [key, plain(value)]));

async function bodyOf(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

export async function startOtlpReceiver() {
  const spans: ReceivedSpan[] = [];
  /** Every body received, as sent: for checks on everything that left a process. */
  const bodies: string[] = [];
  const server = createServer((request, response) => {
    void bodyOf(request).then((text) => {
      if (request.method !== 'POST' || request.url !== '/v1/traces') {
        response.writeHead(404).end();
        return;
      }
      bodies.push(text);
      const traces = JSON.parse(text) as WireTraces;
      for (const resourceSpans of traces.resourceSpans ?? []) {
        const service = String(attributesOf(resourceSpans.resource?.attributes)['service.name']);
        for (const scope of resourceSpans.scopeSpans ?? []) {
          for (const span of scope.spans ?? []) {
            spans.push({
              service,
              traceId: span.traceId,
              spanId: span.spanId,
              parentSpanId: span.parentSpanId || undefined,
              name: span.name,
              attributes: attributesOf(span.attributes),
              statusMessage: span.status?.message || undefined,
              events: (span.events ?? []).map((event) => ({
                name: event.name,
                attributes: attributesOf(event.attributes),
              })),
            });
          }
        }
      }
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    spans,
    bodies,
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}
