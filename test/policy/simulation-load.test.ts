/**
 * One admin's simulation slows no other tenant: the worst candidate the policy language allows,
 * over twenty recorded long command lines, runs while another workspace's runners make calls,
 * and their allow latency stays where it was just before. It runs among the other files: it
 * loads the shared services on purpose, and beside the outage files (tried) it took their answers
 * past their bound on a machine running two suites, so it is never beside those.
 * The bound is the catastrophic one: on the event loop, the same simulation stalls every answer
 * for its whole deadline (a handful of calls answered in the measured 15 s, each in seconds), so
 * the p99 may reach five times its value just before or a second, whichever is more, with at
 * least fifty calls answered; the ratio itself is printed, for a quiet machine's figure
 * (within 1.5x there).
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { beforeAll, test } from 'vitest';
import { windowQuery } from '../../src/temporal/recorded-calls.js';
import { useHarness } from '../support/harness.js';
import {
  createRun,
  defaultPolicy,
  expectStatus,
  seedWorkspace,
  toolCall,
  untilAnswered,
  type CreatedRun,
} from '../support/seed.js';
import { testTemporalClient } from '../support/temporal.js';

/**
 * Long enough to measure the other workspace's calls beside the simulation (all but its last 8 s:
 * 15 s; with two suites side by side, 58 calls were answered in 10 s); one call of the worst
 * candidate outlasts it many times over.
 */
const deadlineS = 24;
const h = useHarness({
  policy: defaultPolicy,
  api: { simulation: { deadlineMs: deadlineS * 1000, atOnce: 1 } },
});

const programs = ['git', 'npm', 'node', 'python3', 'rm', 'cat', 'ls', 'curl', 'make', 'cargo'];
/** Recorded lines: twenty, each of hundreds of commands, far more than the deadline admits. */
const recordedLines = 20;
const commandsPerLine = 1500;
const lineOf = (n: number) =>
  Array.from(
    { length: commandsPerLine },
    (_, i) => `${programs[(n + i) % programs.length] ?? 'ls'} sub${i % 64} arg${n}-${i} --f=${i}`,
  ).join(' && ');

/**
 * The worst candidate the language allows within a request: 500 rules of 64 command patterns
 * each, none matching, so every pattern is tried on every command of every line.
 */
function worstCandidate(workspace: string) {
  return {
    ...defaultPolicy,
    workspace,
    name: 'worst',
    rules: Array.from({ length: 500 }, (_, r) => ({
      id: `r${r}`,
      match: {
        tool: 'Bash',
        args: [
          {
            path: '/command',
            op: 'command',
            value: Array.from({ length: 64 }, (_, p) => [
              programs[(r + p) % programs.length] ?? 'ls',
              `sub${p}`,
              '*',
              'no',
            ]),
          },
        ],
      },
      verdict: 'deny',
    })),
  };
}

let since: Date;
let recordedSessions: string[];
let other: { run: CreatedRun };

beforeAll(async () => {
  since = new Date(Date.now() - 1000);
  const runs = await Promise.all(Array.from({ length: 10 }, () => createRun(h.api, h.seed)));
  recordedSessions = runs.map((run) => run.session_id);
  let next = 0;
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      while (next < recordedLines) {
        const n = next++;
        const run = runs[n % runs.length] as CreatedRun;
        const answer = await untilAnswered(() =>
          toolCall(h.api, run, `line-${n}`, { tool: 'Bash', arguments: { command: lineOf(n) } }),
        );
        assert.equal(answer.status, 200, JSON.stringify(answer.body));
      }
    }),
  );
  const client = testTemporalClient();
  const window = { since, until: new Date(Date.now() + 60_000), sessions: recordedSessions };
  try {
    const deadline = Date.now() + 120_000;
    while ((await client.workflow.count(windowQuery(window))).count < recordedLines) {
      assert.ok(Date.now() < deadline, 'the recorded calls are listed within two minutes');
      await sleep(250);
    }
  } finally {
    await client.connection.close();
  }
  // Another workspace, whose runners make allowed calls meanwhile.
  const seed = await seedWorkspace(h.api);
  other = { run: await createRun(h.api, seed) };
}, 300_000);

let sent = 0;
/**
 * Allowed calls of the other workspace, four runners at once, until `count` are answered or the
 * time `until` (performance.now()) passes: each one's latency.
 */
async function allowLatencies(count: number, until = Infinity): Promise<number[]> {
  const latencies: number[] = [];
  await Promise.all(
    Array.from({ length: 4 }, async () => {
      while (latencies.length < count && performance.now() < until) {
        const id = `read-${sent++}`;
        const started = performance.now();
        const answer = await toolCall(h.api, other.run, id, {
          tool: 'Read',
          arguments: { file_path: `/repo/${id}` },
        });
        latencies.push(performance.now() - started);
        assert.equal(answer.status, 200, JSON.stringify(answer.body));
        assert.equal((answer.body as { decision: string }).decision, 'allow');
      }
    }),
  );
  return latencies;
}

function p99(latencies: number[]): number {
  const sorted = [...latencies].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * 0.99))] ?? Infinity;
}

/**
 * Threads of this process at the lowest priority (nice 19), by id, read from Linux's /proc. Other
 * files' simulation threads may still be kept in this process (each waits a minute for its next
 * simulation): a simulation's own thread is one not there before it started.
 */
function lowestPriorityThreads(): Set<string> {
  const tasks = readdirSync('/proc/self/task').filter((task) => {
    let stat: string;
    try {
      stat = readFileSync(`/proc/self/task/${task}/stat`, 'utf8');
    } catch (err) {
      // A thread that ended between the listing and the read (a loaded machine made it likely):
      // its folder gone (ENOENT), or still listed with no thread behind it (ESRCH).
      const { code } = err as NodeJS.ErrnoException;
      if (code === 'ENOENT' || code === 'ESRCH') return false;
      throw err;
    }
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return fields[16] === '19';
  });
  return new Set(tasks);
}

/** Calls measured just before the simulation, and at most while it runs. */
const samples = 300;
/**
 * Fewer calls measured while the simulation ran make no round: a stalled event loop answers a
 * handful in the measured 15 s, a loaded machine's other files leave far more than this.
 */
const fewestSamples = 50;
/**
 * Catastrophic only: the machine may be running another full suite beside this one, and the
 * other files of this one load it while it measures.
 */
const bound = 5;
const floorMs = 1000;

test("the worst candidate's simulation over twenty long lines, running while another workspace's runners make calls, leaves their allow p99 near its value just before; the simulation stops at its deadline inside one call's evaluation", async () => {
  const candidate = worstCandidate(h.seed.workspace);
  assert.ok(JSON.stringify({ candidate }).length < 1024 * 1024, 'within the body limit');
  await allowLatencies(100); // warm
  const rounds: string[] = [];
  // The machine is shared: a round disturbed from outside is measured again, at most three.
  for (let round = 0; round < 3; round += 1) {
    const quiet = p99(await allowLatencies(samples));
    const keptBefore = lowestPriorityThreads();
    const ownThreads = () => [...lowestPriorityThreads()].filter((t) => !keptBefore.has(t));
    const started = performance.now();
    const progress = { answered: false };
    const simulation = h.api
      .call('POST', `/v1/policies/${h.seed.policyId}/simulate`, {
        token: h.api.operatorKey,
        body: { candidate, since: since.toISOString(), sessions: recordedSessions },
      })
      .finally(() => {
        progress.answered = true;
      });
    // The thread is evaluating once it has lowered its own priority and read its first calls.
    const busyBy = Date.now() + 10_000;
    while (ownThreads().length === 0 && Date.now() < busyBy) await sleep(50);
    assert.ok(ownThreads().length > 0, 'the simulation thread runs at the lowest priority');
    await sleep(1000);
    // Measured while the simulation surely runs: until a few seconds before its deadline.
    const duringLatencies = await allowLatencies(samples, started + (deadlineS - 8) * 1000);
    const during = p99(duringLatencies);
    if (progress.answered) {
      const early = await simulation;
      assert.fail(
        `the simulation answered during the measurement: ${early.status} ${JSON.stringify(early.body).slice(0, 500)}`,
      );
    }
    // One simulation at a time here: another is refused while it runs, to be tried again.
    const refused = await h.api.call('POST', `/v1/policies/${h.seed.policyId}/simulate`, {
      token: h.api.operatorKey,
      body: { version: 1 },
    });
    assert.equal(refused.status, 503);
    assert.ok(refused.headers.get('retry-after'));
    const report = await expectStatus<{
      evaluated: number;
      complete: boolean;
      stopped_by: string | null;
    }>(simulation, 200);
    const tookS = (performance.now() - started) / 1000;
    // One call of this candidate takes far longer than the deadline: the thread was stopped in it.
    assert.equal(report.stopped_by, 'deadline');
    assert.ok(report.evaluated < recordedLines);
    assert.ok(tookS < deadlineS + 10, `answered at its deadline (${tookS.toFixed(1)} s)`);
    rounds.push(
      `quiet p99 ${quiet.toFixed(0)} ms, during ${during.toFixed(0)} ms (${(during / quiet).toFixed(2)}x) of ${duringLatencies.length} calls (${report.evaluated} evaluated, answered at ${tookS.toFixed(1)} s)`,
    );
    process.stdout.write(`simulation under load, round ${round + 1}: ${rounds.at(-1) ?? ''}\n`);
    if (duringLatencies.length >= fewestSamples && during <= Math.max(quiet * bound, floorMs))
      return;
  }
  assert.fail(
    `the allow p99 rose past ${bound}x of its quiet value and ${floorMs} ms, or fewer than ${fewestSamples} calls were answered, in every round: ${rounds.join('; ')}`,
  );
}, 600_000);
