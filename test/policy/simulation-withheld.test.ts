import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, test } from 'vitest';
import { windowQuery } from '../../src/temporal/recorded-calls.js';
import { useHarness } from '../support/harness.js';
import { startRugpullUpstream, type RugpullUpstream } from '../support/rugpull-upstream.js';
import {
  addMember,
  createRun,
  expectStatus,
  toolCall,
  untilAnswered,
  type CreatedRun,
} from '../support/seed.js';
import { testTemporalClient } from '../support/temporal.js';
import { signInOverHttp } from '../support/web-form.js';

/** Reads are allowed unasked; Bash and every brokered call ask a person. */
const policy = {
  name: 'withheld',
  rules: [
    { id: 'reads', match: { tool: 'Read' }, verdict: 'allow' },
    { id: 'brokered-asks', match: { class: 'brokered' }, verdict: 'require_approval' },
    { id: 'bash-asks', match: { tool: 'Bash' }, verdict: 'require_approval' },
  ],
  default: 'deny',
  autonomous_fallback: 'deny',
  approval: { timeout_s: 600, on_timeout: 'deny' },
};

const h = useHarness({ policy });
let upstream: RugpullUpstream;
const upstreamToken = randomBytes(16).toString('hex');
/** The letter after `credentials-` in a file no person was ever shown. */
const secretLetter = String.fromCharCode(97 + ((randomBytes(1)[0] ?? 0) % 26));
const secretPath = `/home/dev/.aws/credentials-${secretLetter}`;
let owner: { user_id: string; token: string };
let ownersRun: CreatedRun;
let adminsRun: CreatedRun;
let since: Date;
let until: Date;

async function answered(run: CreatedRun, id: string, body: Record<string, unknown>) {
  const answer = await untilAnswered(() => toolCall(h.api, run, id, body));
  assert.ok(answer.status === 200 || answer.status === 202, JSON.stringify(answer.body));
  return answer.body as { status: string; decision?: string };
}

async function decide(run: CreatedRun, id: string, token: string) {
  await expectStatus(
    h.api.call('POST', `/v1/approvals/${run.session_id}/${id}/decision`, {
      token,
      body: { decision: 'approve' },
    }),
    200,
  );
}

beforeAll(async () => {
  upstream = await startRugpullUpstream({ token: upstreamToken });
  since = new Date(Date.now() - 1000);
  owner = await addMember(h.api, h.seed.workspace, 'olive', 'member');
  const personal = await expectStatus<{ id: string }>(
    h.api.call('POST', '/v1/connections', {
      token: h.api.operatorKey,
      body: {
        workspace: h.seed.workspace,
        name: 'mine',
        kind: 'personal',
        owner_user_id: owner.user_id,
        url: upstream.url,
        credential: { type: 'bearer', token: upstreamToken },
      },
    }),
    201,
  );
  ownersRun = await createRun(h.api, h.seed, {
    invoked_by: owner.user_id,
    tools: { bundles: [h.seed.bundleId], connections: [{ id: personal.id }] },
  });
  adminsRun = await createRun(h.api, h.seed);
  // Allowed unasked: no person was ever shown its path.
  assert.equal(
    (await answered(ownersRun, 'read', { tool: 'Read', arguments: { file_path: secretPath } }))
      .decision,
    'allow',
  );
  // Owner-only: a personal connection's call, decided by its owner alone.
  await answered(ownersRun, 'notes', {
    tool: 'mcp__mine__search_notes',
    arguments: { query: 'salary review' },
  });
  await decide(ownersRun, 'notes', owner.token);
  // A call the admin was asked about: theirs to read.
  await answered(adminsRun, 'test', { tool: 'Bash', arguments: { command: 'npm test' } });
  await decide(adminsRun, 'test', h.seed.admin.token);
  until = new Date(Date.now() + 60_000);
  const client = testTemporalClient();
  const window = { since, until, sessions: [ownersRun.session_id, adminsRun.session_id] };
  try {
    const deadline = Date.now() + 60_000;
    while ((await client.workflow.count(windowQuery(window))).count < 3) {
      assert.ok(Date.now() < deadline, 'the recorded calls are listed within a minute');
      await sleep(250);
    }
  } finally {
    await client.connection.close();
  }
}, 180_000);

afterAll(async () => {
  await upstream.close();
});

/** One rule per letter: a `Read` whose path starts `credentials-<letter>` is denied. */
function oracleCandidate(letter: string) {
  return {
    ...policy,
    workspace: h.seed.workspace,
    rules: [
      {
        id: `guess-${letter}`,
        match: {
          tool: 'Read',
          args: [
            { path: '/file_path', op: 'prefix', value: `/home/dev/.aws/credentials-${letter}` },
          ],
        },
        verdict: 'deny',
      },
      ...policy.rules,
    ],
  };
}

interface Report {
  evaluated: number;
  withheld: number;
  by_outcome: Record<string, number>;
  by_rule: Record<string, number>;
  changed: { tool_call_id: string; candidate: { rule_id: string | null } }[];
}

const simulate = (token: string, candidate: unknown) =>
  expectStatus<Report>(
    h.api.call('POST', `/v1/policies/${h.seed.policyId}/simulate`, {
      token,
      body: {
        candidate,
        since: since.toISOString(),
        until: until.toISOString(),
        sessions: [ownersRun.session_id, adminsRun.session_id],
      },
    }),
    200,
  );

const letters = 'abcdefghijklmnopqrstuvwxyz'.split('');

/** Each letter's simulation, two at a time (as many as an API process runs at once). */
async function perLetter(token: string): Promise<Report[]> {
  const answers: Report[] = [];
  for (let at = 0; at < letters.length; at += 2) {
    const pair = letters.slice(at, at + 2);
    answers.push(...(await Promise.all(pair.map((l) => simulate(token, oracleCandidate(l))))));
  }
  return answers;
}

test("the oracle attack: an admin's 26 candidates, one prefix rule per letter, over a Read no person was ever shown, learn nothing: all 26 answers are identical", async () => {
  const answers = await perLetter(h.seed.admin.token);
  const [first] = answers;
  assert.ok(first);
  for (const answer of answers) assert.deepEqual(answer, first);
  assert.equal(first.withheld, 2);
  assert.equal(first.evaluated, 1, 'only the call the admin decided is evaluated');
  assert.deepEqual(first.by_rule, { 'bash-asks': 1 });

  // The same attack as the operator, who may read every call, finds the letter: the test can see it.
  const operators = await perLetter(h.api.operatorKey);
  const found = letters.filter((_, i) =>
    operators[i]?.changed.some((c) => c.tool_call_id === 'read'),
  );
  assert.deepEqual(found, [secretLetter]);
}, 600_000);

test("an admin's simulation over a workspace holding owner-only calls reports them withheld, on the API and on the page", async () => {
  const loosened = {
    ...policy,
    workspace: h.seed.workspace,
    rules: [{ id: 'all-free', match: {}, verdict: 'allow' }],
  };
  const admins = await simulate(h.seed.admin.token, loosened);
  assert.equal(admins.withheld, 2);
  assert.deepEqual(
    admins.changed.map((c) => c.tool_call_id),
    ['test'],
    "the owner's call is never evaluated against the admin's candidate",
  );
  assert.deepEqual(admins.by_outcome, { allow: 1, deny: 0, ask: 0 });
  const operators = await simulate(h.api.operatorKey, loosened);
  assert.equal(operators.withheld, 0);
  assert.deepEqual(operators.changed.map((c) => c.tool_call_id).sort(), ['notes', 'test']);

  await expectStatus(
    h.api.call('PUT', `/v1/policies/${h.seed.policyId}`, {
      token: h.api.operatorKey,
      body: loosened,
    }),
    200,
  );
  const cookie = await signInOverHttp(h.api.url, h.seed.admin.token);
  assert.ok(cookie);
  const url = `${h.api.url}/policies/${h.seed.policyId}/simulate?version=2&since=${encodeURIComponent(since.toISOString())}`;
  const response = await fetch(url, { headers: { cookie } });
  const page = await response.text();
  assert.equal(response.status, 200, page);
  assert.match(page, /<p class="meta" id="withheld">\s*2 withheld/);
  assert.ok(!page.includes('credentials-') && !page.includes('salary'), 'no argument value');
});
