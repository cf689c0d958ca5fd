import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, test } from 'vitest';
import { applyAutonomy } from '../../src/domain/gate/autonomy.js';
import { evaluatePolicy, policyBodySchema } from '../../src/domain/policy/policy.js';
import type { SimulatedOutcome } from '../../src/domain/policy/simulation.js';
import { windowQuery } from '../../src/temporal/recorded-calls.js';
import { exportHistories } from '../../tools/histories.js';
import { simulateCommand } from '../../tools/policy.js';
import { useHarness } from '../support/harness.js';
import {
  createRun,
  expectStatus,
  toolCall,
  untilAnswered,
  type CreatedRun,
} from '../support/seed.js';
import { testTemporalClient } from '../support/temporal.js';
import { signInOverHttp } from '../support/web-form.js';

const recordedPolicy = {
  name: 'recorded',
  rules: [
    { id: 'reads', match: { effect: 'read' }, verdict: 'allow' },
    {
      id: 'no-rm',
      match: { tool: 'Bash', args: [{ path: '/command', op: 'command', value: [['rm', '**']] }] },
      verdict: 'deny',
    },
    {
      id: 'push-asks',
      match: {
        tool: 'Bash',
        args: [{ path: '/command', op: 'command', value: [['git', 'push', '**']] }],
      },
      verdict: 'require_approval',
    },
    { id: 'bash-ok', match: { tool: 'Bash' }, verdict: 'allow' },
  ],
  default: 'deny',
  autonomous_fallback: 'deny',
  approval: { timeout_s: 600, on_timeout: 'deny' },
};

/** Tightens Grep (it asks a person now) and loosens a push (allowed now). */
const candidateRules = [
  { id: 'grep-asks', match: { tool: 'Grep' }, verdict: 'require_approval' },
  recordedPolicy.rules[0],
  recordedPolicy.rules[1],
  { ...recordedPolicy.rules[2], verdict: 'allow' },
  recordedPolicy.rules[3],
];

// Five hundred histories and more read from Temporal on a loaded machine may take longer than the
// default deadline: this one is the catastrophic bound, many times their quiet reading.
const h = useHarness({
  policy: recordedPolicy,
  api: { simulation: { deadlineMs: 180_000, atOnce: 2 } },
});

/** One call as sent and as answered, for evaluating it directly. */
interface SentCall {
  run: CreatedRun & { autonomy: 'supervised' | 'autonomous' };
  tool_call_id: string;
  tool: 'Read' | 'Grep' | 'Bash';
  arguments: Record<string, unknown>;
  outcome: SimulatedOutcome;
  source?: string;
}

/** The calls each of the 20 runs sends: together more than a page of the recorded calls' list. */
const callsPerRun = 26;
/** How many workflows Temporal lists a page (src/temporal/recorded-calls.ts). */
const listPage = 500;

const commands = ['ls -la', 'rm -rf build', 'npm test', 'cat README.md', 'git status'];

/** The i-th call of a run: varied tools, arguments and rules; every 97th fails its schema. */
function callOf(i: number): Pick<SentCall, 'tool' | 'arguments'> {
  if (i % 97 === 5) return { tool: 'Read', arguments: { path: 'no file_path' } };
  switch (i % 4) {
    case 0:
      return { tool: 'Read', arguments: { file_path: `/repo/src/${i}.ts` } };
    case 1:
      return { tool: 'Grep', arguments: { pattern: `needle-${i}` } };
    default:
      return { tool: 'Bash', arguments: { command: commands[i % commands.length] ?? 'ls' } };
  }
}

const sent: SentCall[] = [];
let since: Date;
let candidate: ReturnType<typeof policyBodySchema.parse>;
let folder: string;

async function inParallel<T>(items: T[], width: number, work: (item: T) => Promise<void>) {
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < items.length) await work(items[next++] as T);
    }),
  );
}

async function send(
  run: SentCall['run'],
  id: string,
  call: Pick<SentCall, 'tool' | 'arguments'>,
): Promise<SentCall> {
  const answer = await untilAnswered(() => toolCall(h.api, run, id, call));
  assert.ok(answer.status === 200 || answer.status === 202, JSON.stringify(answer.body));
  const body = answer.body as { status: string; decision?: 'allow' | 'deny'; source?: string };
  const outcome = body.status === 'pending_approval' ? 'ask' : (body.decision ?? 'deny');
  return { run, tool_call_id: id, ...call, outcome, ...(body.source && { source: body.source }) };
}

beforeAll(async () => {
  since = new Date(Date.now() - 1000);
  candidate = policyBodySchema.parse({
    ...recordedPolicy,
    workspace: h.seed.workspace,
    rules: candidateRules,
  });
  const runs: SentCall['run'][] = [];
  for (let r = 0; r < 20; r += 1) {
    const autonomy = r % 4 === 3 ? 'autonomous' : 'supervised';
    runs.push({ ...(await createRun(h.api, h.seed, { autonomy })), autonomy });
  }
  // Interleaved across runs, as many agents at once send them: more calls than one page of
  // Temporal's list (500), so the simulation reads past a page.
  const work = Array.from({ length: callsPerRun }, (_, i) =>
    runs.map((run) => ({ run, id: `c${i}`, call: callOf(i) })),
  ).flat();
  // A push in a supervised run waits on a person; the autonomous runs push too (their fallback).
  const pushes = runs.flatMap((run, r) =>
    run.autonomy === 'autonomous' || r < 2
      ? [0, 1].map((i) => ({
          run,
          id: `push${i}`,
          call: { tool: 'Bash' as const, arguments: { command: `git push origin b${i}` } },
        }))
      : [],
  );
  await inParallel([...work, ...pushes], 24, async ({ run, id, call }) => {
    sent.push(await send(run, id, call));
  });
  for (const asked of sent.filter((call) => call.outcome === 'ask')) {
    await expectStatus(
      h.api.call('POST', `/v1/approvals/${asked.run.session_id}/${asked.tool_call_id}/decision`, {
        token: h.seed.admin.token,
        body: { decision: asked.tool_call_id === 'push0' ? 'approve' : 'deny' },
      }),
      200,
    );
  }
  // Temporal lists a workflow once it has closed and its visibility record is written.
  const client = testTemporalClient();
  // Other files' calls close in the same namespace meanwhile: only these sessions are counted.
  const window = {
    since,
    until: new Date(Date.now() + 60_000),
    sessions: runs.map((run) => run.session_id),
  };
  try {
    const deadline = Date.now() + 60_000;
    while ((await client.workflow.count(windowQuery(window))).count < sent.length) {
      assert.ok(Date.now() < deadline, 'the recorded calls are listed within a minute');
      await sleep(250);
    }
  } finally {
    await client.connection.close();
  }
  folder = mkdtempSync(path.join(tmpdir(), 'gate-histories-'));
  await exportHistories(folder, windowQuery(window), 10_000, h.api.config);
}, 300_000);

afterAll(() => {
  if (folder) rmSync(folder, { recursive: true, force: true });
});

/** The candidate on one call, evaluated directly: the policy function on the frozen tool's facts. */
function directly(call: SentCall): SimulatedOutcome {
  if (call.source && call.source !== 'policy' && call.source !== 'approval') return 'deny';
  const tool = call.run.tools.find((t) => t.name === call.tool) as {
    name: string;
    class: 'sandbox' | 'brokered';
    effect: 'read' | 'write';
  };
  const verdict = applyAutonomy(
    evaluatePolicy(candidate, { ...tool, tool: tool.name, arguments: call.arguments }),
    call.run.autonomy,
    candidate.autonomous_fallback,
  );
  return verdict.verdict === 'require_approval' ? 'ask' : verdict.verdict;
}

/** The calls whose outcome the candidate changes, of those `shown` (all, by default). */
function expectedChanges(
  shown: (call: SentCall) => boolean = () => true,
): Map<string, SimulatedOutcome> {
  const changes = new Map<string, SimulatedOutcome>();
  for (const call of sent.filter(shown)) {
    const outcome = directly(call);
    if (outcome !== call.outcome)
      changes.set(`${call.run.session_id}/${call.tool_call_id}`, outcome);
  }
  return changes;
}

interface Report {
  evaluated: number;
  withheld: number;
  by_outcome: Record<SimulatedOutcome, number>;
  by_rule: Record<string, number>;
  changed: {
    session_id: string;
    tool_call_id: string;
    recorded: { decision: string; source?: string; rule_id?: string; asked: boolean };
    candidate: { decision: SimulatedOutcome; rule_id: string | null };
    arguments?: unknown;
  }[];
  complete: boolean;
}

function reportedChanges(report: Report): Map<string, SimulatedOutcome> {
  return new Map(
    report.changed.map((c) => [`${c.session_id}/${c.tool_call_id}`, c.candidate.decision]),
  );
}

function changeOf(report: Report, call: SentCall | undefined) {
  assert.ok(call);
  return report.changed.find(
    (c) => c.session_id === call.run.session_id && c.tool_call_id === call.tool_call_id,
  );
}

test('a candidate tightening one rule and loosening another changes exactly the calls evaluating each directly changes, from Temporal and from an exported file', async () => {
  assert.ok(sent.length > listPage, `${sent.length} calls, more than a page of the list`);
  const body = {
    candidate,
    since: since.toISOString(),
    until: new Date(Date.now() + 60_000).toISOString(),
  };
  const fromTemporal = await expectStatus<Report>(
    h.api.call('POST', `/v1/policies/${h.seed.policyId}/simulate`, {
      token: h.api.operatorKey,
      body,
    }),
    200,
  );
  const fromFile = await simulateCommand(
    { policyId: h.seed.policyId, body, from: folder },
    h.api.config,
  );
  const expected = expectedChanges();
  assert.ok(expected.size > 100, 'the candidate changes many calls');
  for (const report of [fromTemporal, fromFile as unknown as Report]) {
    assert.equal(report.evaluated, sent.length);
    assert.equal(report.withheld, 0, 'the operator reads every call');
    assert.equal(report.complete, true);
    assert.deepEqual(reportedChanges(report), expected);
    const counted = (outcome: SimulatedOutcome) =>
      sent.filter((c) => directly(c) === outcome).length;
    assert.deepEqual(report.by_outcome, {
      allow: counted('allow'),
      deny: counted('deny'),
      ask: counted('ask'),
    });
  }
  // The operator reads argument values.
  assert.ok(fromTemporal.changed.every((c) => c.arguments !== undefined));

  // A schema denial stands, though the candidate allows its tool.
  const schemaDenied = sent.filter((c) => c.source === 'schema');
  assert.ok(schemaDenied.length > 0);
  for (const call of schemaDenied) assert.equal(changeOf(fromTemporal, call), undefined);
  assert.equal(fromTemporal.by_rule['stage:schema'], schemaDenied.length);

  // An autonomous run's push was its fallback (deny); the candidate allows it.
  const autonomousPush = changeOf(
    fromTemporal,
    sent.find((c) => c.run.autonomy === 'autonomous' && c.tool_call_id === 'push0'),
  );
  assert.deepEqual(autonomousPush?.recorded, {
    decision: 'deny',
    source: 'policy',
    rule_id: 'push-asks',
    asked: false,
  });
  assert.equal(autonomousPush.candidate.decision, 'allow');
  // A Grep: a supervised run would ask; an autonomous one takes the fallback.
  const grepIn = (autonomy: string) =>
    changeOf(
      fromTemporal,
      sent.find((c) => c.run.autonomy === autonomy && c.tool === 'Grep'),
    );
  assert.equal(grepIn('supervised')?.candidate.decision, 'ask');
  assert.deepEqual(grepIn('autonomous')?.candidate, {
    decision: 'deny',
    rule_id: 'grep-asks',
    reason: 'denied by rule "grep-asks" (the autonomous fallback for require_approval)',
  });
  // A supervised push asked a person (who approved or denied): the candidate allows it outright.
  const askedPush = changeOf(
    fromTemporal,
    sent.find((c) => c.run.autonomy === 'supervised' && c.tool_call_id === 'push1'),
  );
  assert.deepEqual(askedPush?.recorded, {
    decision: 'deny',
    source: 'approval',
    rule_id: 'push-asks',
    asked: true,
  });
});

/** The calls the seeded admin was asked about: the only ones whose arguments they read. */
const askedOfTheAdmin = (call: SentCall) => call.outcome === 'ask';

test("an admin simulates their own workspace's policy on the calls they were asked about, without argument values, the others withheld; a bad window, candidate or version is named", async () => {
  const path = `/v1/policies/${h.seed.policyId}/simulate`;
  const session = sent.find(askedOfTheAdmin)?.run.session_id;
  assert.ok(session);
  const report = await expectStatus<Report>(
    h.api.call('POST', path, {
      token: h.seed.admin.token,
      body: { version: 1, sessions: [session], since: since.toISOString(), limit: 10 },
    }),
    200,
  );
  assert.equal(report.evaluated + report.withheld, 10, 'the limit counts the calls read');
  assert.equal(report.complete, false);
  assert.deepEqual(report.changed, [], 'the policy against itself changes nothing');

  const loosened = await expectStatus<Report>(
    h.api.call('POST', path, {
      token: h.seed.admin.token,
      body: { candidate, sessions: [session], since: since.toISOString() },
    }),
    200,
  );
  const inSession = (call: SentCall) => call.run.session_id === session;
  assert.equal(loosened.evaluated, sent.filter((c) => inSession(c) && askedOfTheAdmin(c)).length);
  assert.equal(loosened.withheld, sent.filter((c) => inSession(c) && !askedOfTheAdmin(c)).length);
  assert.deepEqual(
    reportedChanges(loosened),
    expectedChanges((c) => inSession(c) && askedOfTheAdmin(c)),
  );
  assert.ok(loosened.changed.length > 0);
  assert.ok(loosened.changed.every((c) => c.arguments === undefined));

  const refused = async (body: unknown, field: string) => {
    const problem = await expectStatus<{ errors: { path: string }[] }>(
      h.api.call('POST', path, { token: h.api.operatorKey, body }),
      400,
    );
    assert.ok(
      problem.errors.some((e) => e.path === field),
      `${field} in ${JSON.stringify(problem)}`,
    );
  };
  await refused(
    { version: 1, since: '2026-01-02T00:00:00Z', until: '2026-01-01T00:00:00Z' },
    'body.since',
  );
  await refused({ version: 1, candidate }, 'body.candidate');
  await refused({ version: 99 }, 'body.version');
  await refused({ candidate: { ...candidate, default: 'maybe' } }, 'body.candidate.default');
  await refused(
    { candidate: { ...candidate, workspace: '00000000-0000-4000-8000-000000000000' } },
    'body.candidate.workspace',
  );

  const other = await expectStatus<{ id: string }>(
    h.api.call('POST', '/v1/workspaces', { token: h.api.operatorKey, body: { name: 'other' } }),
    201,
  );
  const outsider = await expectStatus<{ user_token: string }>(
    h.api.call('POST', `/v1/workspaces/${other.id}/members`, {
      token: h.api.operatorKey,
      body: { name: 'olga', role: 'admin' },
    }),
    201,
  );
  assert.equal(
    (await h.api.call('POST', path, { token: outsider.user_token, body: { version: 1 } })).status,
    404,
  );
  const member = await expectStatus<{ user_token: string }>(
    h.api.call('POST', `/v1/workspaces/${h.seed.workspace}/members`, {
      token: h.api.operatorKey,
      body: { name: 'mo', role: 'approver' },
    }),
    201,
  );
  assert.equal(
    (await h.api.call('POST', path, { token: member.user_token, body: { version: 1 } })).status,
    403,
  );
});

test("an admin's page shows a version's simulation beside the recorded version's rules, escaped, without argument values", async () => {
  await expectStatus(
    h.api.call('PUT', `/v1/policies/${h.seed.policyId}`, {
      token: h.api.operatorKey,
      body: candidate,
    }),
    200,
  );
  const cookie = await signInOverHttp(h.api.url, h.seed.admin.token);
  assert.ok(cookie);
  const url = `${h.api.url}/policies/${h.seed.policyId}/simulate?version=2&since=${encodeURIComponent(since.toISOString())}`;
  const response = await fetch(url, { headers: { cookie } });
  const page = await response.text();
  assert.equal(response.status, 200, page);
  const rows = /<table id="changed">[\s\S]*?<tbody>([\s\S]*?)<\/tbody>/.exec(page)?.[1] ?? '';
  assert.equal(rows.match(/<tr>/g)?.length, expectedChanges(askedOfTheAdmin).size);
  const withheld = sent.filter((c) => !askedOfTheAdmin(c)).length;
  assert.match(page, new RegExp(`<p class="meta" id="withheld">\\s*${withheld} withheld`));
  assert.ok(page.includes('Version 1 (recorded)') && page.includes('Version 2 (candidate)'));
  assert.ok(page.includes('&quot;grep-asks&quot;'), "the candidate's rules, escaped");
  assert.ok(!page.includes('needle-'), 'no argument value');

  const approver = await expectStatus<{ user_token: string }>(
    h.api.call('POST', `/v1/workspaces/${h.seed.workspace}/members`, {
      token: h.api.operatorKey,
      body: { name: 'abe', role: 'approver' },
    }),
    201,
  );
  const approverCookie = await signInOverHttp(h.api.url, approver.user_token);
  assert.ok(approverCookie);
  assert.equal((await fetch(url, { headers: { cookie: approverCookie } })).status, 403);
});
