/**
 * `npm run bench`: figures and ratios, never pass/fail. Starts a fresh stack of its own (the
 * test profile on slot 9, so it collides with neither `npm run dev` nor `npm test`), a worker
 * process and an API, then measures:
 *   - gate decision latency, sequential, with the cheap stages as local vs regular activities;
 *   - throughput under concurrency;
 *   - a deny at the first stage vs an allow through every stage;
 *   - the pure parts: policy evaluation and argument validation, per second;
 *   - ledger appends per second under concurrency;
 *   - the model proxy's added latency to first byte, against a stub upstream directly.
 */
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { createApi } from '../api/main.js';
import { benchModelProxy } from './bench-model-proxy.js';
import { createDemoRun, seed } from './seed.js';
import { validateArguments } from '../domain/tools/argument-validation.js';
import { evaluatePolicy, type Rule } from '../domain/policy/policy.js';
import { payload, redact } from '../domain/ledger/redaction.js';
import { loadConfig } from '../config.js';
import { appendEvent } from '../store/ledger.js';
import { createPool, withTransaction } from '../store/pool.js';
import { startNodeProcess, startStack } from '../devstack/stack.js';

process.env.GATE_TEST_SLOT ??= '9';

interface Figures {
  p50: number;
  p95: number;
  p99: number;
  mean: number;
}

function figures(samples: number[]): Figures {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q: number) =>
    sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN;
  return {
    p50: at(0.5),
    p95: at(0.95),
    p99: at(0.99),
    mean: sorted.reduce((a, b) => a + b, 0) / sorted.length,
  };
}

const ms = (n: number) => `${n.toFixed(1)} ms`;
const show = (label: string, f: Figures) =>
  process.stdout.write(
    `  ${label.padEnd(44)} p50 ${ms(f.p50).padStart(9)}  p95 ${ms(f.p95).padStart(9)}  p99 ${ms(f.p99).padStart(9)}\n`,
  );

async function main() {
  const stack = await startStack('test', { fresh: true, quietTemporal: true });
  const worker = startNodeProcess('worker', 'src/worker.ts', stack.env, { quiet: true });
  const config = loadConfig(stack.env);
  const operatorKey = config.api.operatorKey ?? '';
  const apis = {
    local: createApi({ ...config, stageActivities: 'local' }, operatorKey),
    remote: createApi({ ...config, stageActivities: 'remote' }, operatorKey),
  };
  const urls: Record<string, string> = {};
  for (const [name, app] of Object.entries(apis)) {
    await app.listen({ host: '127.0.0.1', port: 0 });
    urls[name] = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  }
  const call = async (
    base: string,
    method: string,
    path: string,
    token: string,
    body?: unknown,
  ) => {
    const response = await fetch(base + path, {
      method,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      ...(body !== undefined && { body: JSON.stringify(body) }),
    });
    const json = (await response.json()) as Record<string, unknown>;
    if (response.status >= 300)
      throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(json)}`);
    return json;
  };
  try {
    const base = urls.local ?? '';
    const demo = await seed(base, operatorKey);
    const newRun = () => createDemoRun(base, operatorKey, demo);
    const timeCall = async (
      url: string,
      run: { session_id: string; session_token: string },
      body: unknown,
    ) => {
      const started = performance.now();
      await call(
        url,
        'PUT',
        `/v1/sessions/${run.session_id}/tool-calls/${randomUUID()}`,
        run.session_token,
        body,
      );
      return performance.now() - started;
    };
    const allow = { tool: 'Read', arguments: { file_path: 'README.md' } };
    const denyFirst = { tool: 'Nope', arguments: {} };

    process.stdout.write(
      '\nfluidbox gate benchmark (2 cores; figures vary with load)\n\nGate decisions, sequential, 150 calls each:\n',
    );
    const run = await newRun();
    for (let i = 0; i < 20; i += 1) await timeCall(base, run, allow); // warm-up
    const results: Record<string, Figures> = {};
    for (const [mode, url] of Object.entries(urls)) {
      for (const [label, body] of [
        ['allow (every stage)', allow],
        ['deny at capability (first stage)', denyFirst],
      ] as const) {
        const samples: number[] = [];
        for (let i = 0; i < 150; i += 1) samples.push(await timeCall(url, run, body));
        results[`${mode} ${label}`] = figures(samples);
        show(`${mode} stages, ${label}`, figures(samples));
      }
    }
    const ratio = (a: string, b: string) =>
      ((results[a]?.p50 ?? NaN) / (results[b]?.p50 ?? NaN)).toFixed(2);
    process.stdout.write(
      `  ratio p50 local/remote (allow): ${ratio('local allow (every stage)', 'remote allow (every stage)')}\n` +
        `  ratio p50 first-stage deny/allow (local): ${ratio('local deny at capability (first stage)', 'local allow (every stage)')}\n`,
    );

    process.stdout.write(
      '\nThroughput, 600 allowed calls over 30 runs, 30 at a time (local stages):\n',
    );
    const runs = await Promise.all(Array.from({ length: 30 }, () => newRun()));
    const started = performance.now();
    const concurrent: number[] = [];
    await Promise.all(
      runs.map(async (r) => {
        for (let i = 0; i < 20; i += 1) concurrent.push(await timeCall(base, r, allow));
      }),
    );
    const seconds = (performance.now() - started) / 1000;
    show('latency under load', figures(concurrent));
    process.stdout.write(`  throughput: ${(600 / seconds).toFixed(0)} decisions/s\n`);

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
    let n = 0;
    let t0 = performance.now();
    while (performance.now() - t0 < 1000) {
      evaluatePolicy({ rules, default: 'deny' }, input);
      n += 1;
    }
    process.stdout.write(
      `  policy evaluation, 51 rules, match on the last: ${(n / ((performance.now() - t0) / 1000)).toFixed(0)}/s\n`,
    );
    const schema = {
      type: 'object',
      properties: {
        path: { type: 'string', pattern: '^/repo/' },
        limit: { type: 'integer', minimum: 1 },
      },
      required: ['path'],
    };
    n = 0;
    t0 = performance.now();
    while (performance.now() - t0 < 1000) {
      validateArguments(schema, 'bench-schema', { path: '/repo/a', limit: 3 });
      n += 1;
    }
    process.stdout.write(
      `  argument validation (cached validator, RE2 pattern): ${(n / ((performance.now() - t0) / 1000)).toFixed(0)}/s\n`,
    );

    process.stdout.write('\nLedger appends, 2000 to one stream, 20 at a time:\n');
    const pool = createPool(config.databaseUrl, 25);
    const stream = `bench-${randomUUID()}`;
    const appendTimes: number[] = [];
    t0 = performance.now();
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

    process.stdout.write(
      '\nModel proxy, time to first byte of a streamed answer, 200 requests each, interleaved:\n',
    );
    const proxy = await benchModelProxy(base, operatorKey, demo);
    const direct = figures(proxy.direct);
    const proxied = figures(proxy.proxied);
    show('stub upstream, directly', direct);
    show('through the gate (admit, forward, meter)', proxied);
    process.stdout.write(`  added latency to first byte, p50: ${ms(proxied.p50 - direct.p50)}\n`);
    process.stdout.write('\n');
  } finally {
    for (const app of Object.values(apis)) await app.close();
    await worker.stop();
    await stack.stop();
  }
}

await main();
