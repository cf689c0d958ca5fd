/** The bench's in-process parts: policy evaluation, argument validation, ledger appends. */
import { randomUUID } from 'node:crypto';
import { validateArguments } from '../../src/domain/tools/argument-validation.js';
import { evaluatePolicy, type Rule } from '../../src/domain/policy/policy.js';
import { payload, redact } from '../../src/domain/ledger/redaction.js';
import { appendEvent } from '../../src/store/ledger.js';
import { createPool, withTransaction } from '../../src/store/pool.js';
import { figures, show } from './figures.js';

function perSecond(work: () => void): number {
  let n = 0;
  const t0 = performance.now();
  while (performance.now() - t0 < 1000) {
    work();
    n += 1;
  }
  return n / ((performance.now() - t0) / 1000);
}

export function benchPureParts(): void {
  process.stdout.write('\nPure parts (in this process):\n');
  const rules: Rule[] = Array.from({ length: 50 }, (_, i) => ({
    id: `r${i}`,
    match: {
      tool: `mcp__svc${i}__*`,
      args: [{ path: '/path', op: 'prefix', value: `/repo/${i}/` }],
    },
    verdict: 'deny',
  }));
  rules.push({ id: 'last', match: { tool: 'Read' }, verdict: 'allow' });
  const input = {
    tool: 'Read',
    class: 'sandbox' as const,
    effect: 'read' as const,
    arguments: { path: '/repo/x' },
  };
  const policy = perSecond(() => evaluatePolicy({ rules, default: 'deny' }, input));
  process.stdout.write(
    `  policy evaluation, 51 rules, match on the last: ${policy.toFixed(0)}/s\n`,
  );
  const schema = {
    type: 'object',
    properties: {
      path: { type: 'string', pattern: '^/repo/' },
      limit: { type: 'integer', minimum: 1 },
    },
    required: ['path'],
  };
  const validation = perSecond(() =>
    validateArguments(schema, 'bench-schema', { path: '/repo/a', limit: 3 }),
  );
  process.stdout.write(
    `  argument validation (cached validator, RE2 pattern): ${validation.toFixed(0)}/s\n`,
  );
}

export async function benchLedgerAppends(databaseUrl: string): Promise<void> {
  process.stdout.write('\nLedger appends, 2000 to one stream, 20 at a time:\n');
  const pool = createPool(databaseUrl, { max: 25 });
  const stream = `bench-${randomUUID()}`;
  const appendTimes: number[] = [];
  const t0 = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: 20 }, async () => {
      while (next < 2000) {
        const i = next++;
        const s = performance.now();
        await withTransaction(pool, (tx) =>
          appendEvent(
            tx,
            stream,
            redact('tool.requested', {
              tool_call_id: `c${i}`,
              tool: 'Read',
              execute: false,
              arguments: payload(i),
            }),
          ),
        );
        appendTimes.push(performance.now() - s);
      }
    }),
  );
  process.stdout.write(
    `  ${(2000 / ((performance.now() - t0) / 1000)).toFixed(0)} appends/s (one stream serialises on its head row)\n`,
  );
  show('append latency', figures(appendTimes));
  await pool.end();
}
