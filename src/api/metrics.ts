import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

export interface GateMetrics {
  registry: Registry;
  decisions: Counter<'decision' | 'source'>;
  httpDuration: Histogram<'method' | 'route' | 'status'>;
}

export function createMetrics(): GateMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'gate_' });
  return {
    registry,
    decisions: new Counter({
      name: 'gate_tool_call_decisions_total',
      help: 'Tool-call answers given by the API, by decision and deny source.',
      labelNames: ['decision', 'source'],
      registers: [registry],
    }),
    httpDuration: new Histogram({
      name: 'gate_http_request_duration_seconds',
      help: 'HTTP request durations by route.',
      labelNames: ['method', 'route', 'status'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers: [registry],
    }),
  };
}
