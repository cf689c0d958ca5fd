import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { afterAll, beforeAll, test } from 'vitest';
import { startProcess, waitFor, type ManagedProcess } from '../../tools/devstack/child-process.js';
import { apiCaller, type ApiCaller, type HttpAnswer } from '../support/api.js';
import { testConfig, testOperatorKey } from '../support/env.js';
import { productionBuild } from '../support/production-build.js';
import {
  createRun,
  defaultPolicy,
  seedWorkspace,
  toolCall,
  type CreatedRun,
} from '../support/seed.js';
import { useStorePool } from '../support/store-pool.js';
import { freeLoopbackPort } from '../../tools/devstack/free-port.js';

const db = useStorePool(4);
const processes: ManagedProcess[] = [];
let apis: ApiCaller[] = [];

/** `npm start` / `npm run start:worker` of the build: node on its JavaScript, nothing else. */
function startBuilt(
  dir: string,
  name: string,
  entry: string,
  env: NodeJS.ProcessEnv,
  output: string[],
) {
  const child = startProcess(name, process.execPath, [path.join(dir, entry)], {
    cwd: dir,
    env,
    quiet: true,
    capture: output,
  });
  processes.push(child);
  return child;
}

// The first run after the lock file changes installs production dependencies, then builds.
beforeAll(async () => {
  const dir = productionBuild();
  const config = testConfig();
  const operatorKey = testOperatorKey(config);
  // The test stack's environment, without what only development adds (tsx, a bundle elsewhere).
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    GATE_WORKFLOW_BUNDLE: '',
    NODE_OPTIONS: '',
    NODE_ENV: 'production',
    GATE_TASK_QUEUE: `production-${randomUUID()}`,
    GATE_APPROVAL_RECHECK_S: '1',
    GATE_OPERATOR_KEY: operatorKey,
    LOG_LEVEL: 'warn',
  };
  const started = await Promise.all(
    [0, 1].map(async (n) => {
      const port = await freeLoopbackPort();
      const output: string[] = [];
      const api = startBuilt(
        dir,
        `api-${n}`,
        'dist/api/main.js',
        { ...env, GATE_API_PORT: String(port) },
        output,
      );
      const workerOutput: string[] = [];
      const worker = startBuilt(dir, `worker-${n}`, 'dist/worker.js', env, workerOutput);
      const url = `http://127.0.0.1:${port}`;
      await waitFor(
        `api-${n} and worker-${n}`,
        async () => {
          for (const [child, lines] of [
            [api, output],
            [worker, workerOutput],
          ] as const) {
            if (child.child.exitCode !== null) throw new Error(`exited: ${lines.join('\n')}`);
          }
          if (!workerOutput.some((line) => line.startsWith('worker polling')))
            throw new Error('not polling');
          const ready = await fetch(`${url}/readyz`);
          if (!ready.ok) throw new Error(`readyz ${ready.status}`);
        },
        { timeoutMs: 60_000, intervalMs: 200 },
      );
      return { caller: apiCaller(url, operatorKey), api, worker };
    }),
  );
  apis = started.map((s) => s.caller);
}, 300_000);
afterAll(async () => {
  await Promise.all(processes.map((p) => p.stop()));
});

const policy = {
  ...defaultPolicy,
  rules: [
    { id: 'reads', match: { effect: 'read' }, verdict: 'allow' },
    { id: 'bash-asks', match: { tool: 'Bash' }, verdict: 'require_approval' },
  ],
};

/**
 * Sends to the API `n` picks, and to the other one while that one is gone or busy (a refused
 * connection or a 503), as a runner with two addresses does. At most a minute.
 */
async function onEither(
  n: number,
  send: (api: ApiCaller) => Promise<HttpAnswer>,
): Promise<HttpAnswer> {
  const deadline = Date.now() + 60_000;
  for (let attempt = n; ; attempt += 1) {
    const api = apis[attempt % apis.length]!;
    try {
      const answer = await send(api);
      if (answer.status !== 503) return answer;
    } catch {
      // the process is gone: the other one answers
    }
    if (Date.now() > deadline) throw new Error(`call ${n} found no API within a minute`);
  }
}

async function inBatches<T>(count: number, width: number, work: (n: number) => Promise<T>) {
  const results: T[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < count) {
        const n = next++;
        results[n] = await work(n);
      }
    }),
  );
  return results;
}

test('two built APIs and two workers, one of each killed under load: every call decided once, every approval decidable from either API', async () => {
  const seed = await seedWorkspace(apis[0]!, policy);
  const runs: CreatedRun[] = await Promise.all(
    Array.from({ length: 10 }, () => createRun(apis[0]!, seed)),
  );
  const calls = Array.from({ length: 240 }, (_, n) => ({
    run: runs[n % runs.length]!,
    id: `c${n}`,
    asks: n % 3 === 0,
  }));
  const submit = (n: number) => {
    const { run, id, asks } = calls[n]!;
    const body = asks
      ? { tool: 'Bash', arguments: { command: `deploy ${n}` } }
      : { tool: 'Read', arguments: { file_path: `f${n}` } };
    return onEither(n, (api) => toolCall(api, run, id, body));
  };
  const decide = (n: number) => {
    const { run, id } = calls[n]!;
    return onEither(n, (api) =>
      api.call('POST', `/v1/approvals/${run.session_id}/${id}/decision`, {
        token: seed.admin.token,
        body: { decision: n % 2 === 0 ? 'approve' : 'deny' },
      }),
    );
  };

  // The first half with both alive: the approvals alternate between the APIs.
  const half = calls.length / 2;
  const first = await inBatches(half, 12, submit);
  first.forEach((answer, n) => {
    assert.equal(answer.status, calls[n]!.asks ? 202 : 200);
  });
  const asked = (from: number, to: number) =>
    calls.map((_, n) => n).filter((n) => n >= from && n < to && calls[n]!.asks);
  for (const answer of await Promise.all(asked(0, half).map(decide)))
    assert.equal(answer.status, 200);

  // The second half while one API and one worker are killed.
  const second = inBatches(half, 12, (n) => submit(half + n));
  await waitFor(
    'load on the second half',
    async () => {
      const { rows } = await db.pool.query<{ n: number }>(
        `select count(*)::int as n from tool_calls where session_id = any($1)`,
        [runs.map((r) => r.session_id)],
      );
      if ((rows[0]?.n ?? 0) < half + 20) throw new Error('not yet');
    },
    { timeoutMs: 60_000, intervalMs: 50 },
  );
  for (const victim of processes.filter((p) => /-1$/.test(p.name))) {
    victim.child.kill('SIGKILL');
    await victim.exited;
  }
  const rest = await second;
  rest.forEach((answer) => {
    assert.ok([200, 202].includes(answer.status), JSON.stringify(answer.body));
  });
  for (const answer of await Promise.all(asked(half, calls.length).map(decide))) {
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
  }

  // Every runner gets its decision, and the ledger holds exactly one per call.
  const finals = await Promise.all(
    calls.map(({ run, id }, n) =>
      onEither(n, (api) =>
        api.call('GET', `/v1/sessions/${run.session_id}/tool-calls/${id}?wait=30`, {
          token: run.session_token,
        }),
      ),
    ),
  );
  finals.forEach((answer, n) => {
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    const expected = !calls[n]!.asks || n % 2 === 0 ? 'allow' : 'deny';
    assert.equal(answer.body.decision, expected, `call ${n}`);
  });
  const { rows } = await db.pool.query<{ id: string; n: number }>(
    `select data->>'tool_call_id' as id, count(*)::int as n from ledger_events
      where stream_id = any($1) and type = 'tool.decision' group by 1`,
    [runs.map((r) => r.session_id)],
  );
  assert.equal(rows.length, calls.length);
  assert.deepEqual(
    rows.filter((r) => r.n !== 1),
    [],
  );
});
