/** The bench's in-process parts: policy evaluation, argument validation, ledger appends. */
import { randomUUID } from 'node:crypto';
import { validateArguments } from '../../src/domain/tools/argument-validation.js';
import { evaluatePolicy, type Rule } from '../../src/domain/policy/policy.js';
import { payload, redact } from '../../src/domain/ledger/redaction.js';
import { appendEvent, appendGuarded, type GuardedChange } from '../../src/store/ledger.js';
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

const appendsPerSeries = 2000;
const appendersAtOnce = 20;

/** The n-th event of a bench stream. */
const benchEvent = (n: number) =>
  redact('tool.requested', {
    tool_call_id: `c${n}`,
    tool: 'Read',
    execute: false,
    arguments: payload(n),
  });

/** A change that touches no table: only the event, the head's move and the notice are written. */
const eventOnly: GuardedChange = {
  sql: 'select 1 as done where exists (select 1 from head)',
  values: [],
};

/** `append` run `count` times on one stream, 20 at a time: its rate and latency, unless told not to print. */
async function appendSeries(
  label: string,
  append: (n: number) => Promise<unknown>,
  { count = appendsPerSeries, quiet = false } = {},
) {
  const times: number[] = [];
  const t0 = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: appendersAtOnce }, async () => {
      while (next < count) {
        const n = next++;
        const s = performance.now();
        await append(n);
        times.push(performance.now() - s);
      }
    }),
  );
  const rate = count / ((performance.now() - t0) / 1000);
  if (quiet) return;
  process.stdout.write(`  ${label}: ${rate.toFixed(0)} appends/s\n`);
  show('  its latency', figures(times));
}

/**
 * Appends to one stream from 20 writers at once, as a burst of one session makes them: one
 * stream serialises on its head row, so what counts is how long each holds it.
 */
export async function benchLedgerAppends(databaseUrl: string): Promise<void> {
  process.stdout.write(
    `\nLedger appends, ${String(appendsPerSeries)} to one stream, ${String(appendersAtOnce)} at a time:\n`,
  );
  const pool = createPool(databaseUrl, { max: appendersAtOnce + 5 });
  try {
    // Warmed first: every connection opened, and each statement planned on it.
    const warm = `bench-${randomUUID()}`;
    await withTransaction(pool, (tx) => appendEvent(tx, warm, benchEvent(-1)));
    await appendSeries(
      'warming',
      (n) =>
        n % 2 === 0
          ? withTransaction(pool, (tx) => appendEvent(tx, warm, benchEvent(n)))
          : appendGuarded(pool, warm, eventOnly, benchEvent(n)),
      { count: 400, quiet: true },
    );
    const inTransactions = `bench-${randomUUID()}`;
    await appendSeries('each in a transaction (begin, the append, commit)', (n) =>
      withTransaction(pool, (tx) => appendEvent(tx, inTransactions, benchEvent(n))),
    );
    const alone = `bench-${randomUUID()}`;
    await withTransaction(pool, (tx) => appendEvent(tx, alone, benchEvent(-1)));
    let lockedPath = 0;
    await appendSeries('each a change with its event, one statement (appendGuarded)', async (n) => {
      const event = benchEvent(n);
      const guarded = await appendGuarded(pool, alone, eventOnly, event);
      if (guarded.outcome === 'changed') return;
      // As the gate's writers do when the statement could not append: the locked path.
      lockedPath += 1;
      await withTransaction(pool, (tx) => appendEvent(tx, alone, event));
    });
    process.stdout.write(`    of them taken by the locked path: ${String(lockedPath)}\n`);
  } finally {
    await pool.end();
  }
}
