import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { countPendingApprovals } from '../store/queries/approvals.js';
import type { Pool } from '../store/pool.js';

export interface GateMetrics {
  registry: Registry;
  decisions: Counter<'decision' | 'source'>;
  httpDuration: Histogram<'method' | 'route' | 'status'>;
  budgetRefusals: Counter<'where'>;
  modelSettlementFailures: Counter<'reason'>;
  modelSpend: Counter<'provider_kind' | 'via'>;
}

/**
 * The API process's metrics. Pending approvals are read from PostgreSQL at each scrape, so every
 * API process reports the same exact number, whoever opened or decided them.
 */
export function createMetrics(pool: Pool): GateMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'gate_' });
  new Gauge({
    name: 'gate_pending_approvals',
    help: 'Approvals waiting for a person, in all workspaces (read from PostgreSQL).',
    registers: [registry],
    async collect() {
      // PostgreSQL away: the scrape still answers (readiness says why); the last count stays.
      const count = await countPendingApprovals(pool).catch(() => undefined);
      if (count !== undefined) this.set(count);
    },
  });
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
    budgetRefusals: new Counter({
      name: 'gate_budget_refusals_total',
      help: 'Model requests refused for budget (402), by where they were refused.',
      labelNames: ['where'],
      registers: [registry],
    }),
    modelSpend: new Counter({
      name: 'gate_model_spend_usd_total',
      help: 'Model spend settled, in US dollars (the ledger keeps it exact, in nano-dollars), by provider kind and by who settled it (the proxy or the runner).',
      labelNames: ['provider_kind', 'via'],
      registers: [registry],
    }),
    modelSettlementFailures: new Counter({
      name: 'gate_model_settlement_failures_total',
      help: 'Proxied model requests whose settlement found the reservation settled already, or could not be written (the sweep then charges the booking).',
      labelNames: ['reason'],
      registers: [registry],
    }),
  };
}
