/**
 * Budgets at every level under load, through the Anthropic endpoint: three runs of two people in
 * two teams (identity provider groups) of one workspace, caps on the run, the person, the team
 * and the workspace. However the requests race, no level's recorded spend passes its cap, every
 * refusal names a level the request falls under, and no hold outlives its request.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, test } from 'vitest';
import {
  messagesInputBound,
  parseMessagesRequest,
} from '../../src/domain/budget/messages-request.js';
import {
  costOf,
  defaultPrices,
  formatUsd,
  worstCaseCost,
} from '../../src/domain/budget/pricing.js';
import type { ApiCaller } from '../support/api.js';
import { startFakeAnthropic, text, type FakeAnthropic } from '../support/fake-anthropic.js';
import { useHarness } from '../support/harness.js';
import { createRun, expectStatus, seedWorkspace, type Seed } from '../support/seed.js';
import { createProvider, gateClient, proxyLimits, smallRequest } from '../model/support.js';
import { randomInt, seededRandom } from './support.js';

// Room for every request of a run at once: the budgets, not the per-run cap, are looked at.
const h = useHarness({ api: { modelProxy: proxyLimits({ concurrentPerRun: 256 }) } });
let fake: FakeAnthropic;

beforeAll(async () => {
  fake = await startFakeAnthropic();
});
afterAll(async () => {
  await fake.close();
});

const priceOf = (model: string) => defaultPrices.prices.find((p) => p.model === model)!.price;
const haiku = priceOf('claude-haiku-4-5');
const opus = priceOf('claude-opus-4-1');
const maxTokens = 1_000;
const inputBound = (() => {
  const parsed = parseMessagesRequest(Buffer.from(JSON.stringify(smallRequest(maxTokens))));
  assert.ok(parsed.ok);
  return messagesInputBound(parsed.request).tokens;
})();
const booking = { inputBoundTokens: inputBound, maxOutputTokens: maxTokens };
/** What one request books: in money at Haiku 4.5's prices (Opus 4.1 is 15 times that), in tokens. */
const W = worstCaseCost(haiku, booking);
const T = inputBound + maxTokens;
const reported = { input_tokens: 40, output_tokens: 10 };
/** What one answered Haiku request costs. */
const c = costOf(haiku, { input: 40, cache_write: 0, cache_read: 0, output: 10 });

async function until(condition: () => boolean | Promise<boolean>, what: string, ms = 30_000) {
  const deadline = Date.now() + ms;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** Two provisioned people, each in a team of their own (identity provider groups). */
async function peopleAndTeams(api: ApiCaller, seed: Seed) {
  // Being in either team makes a person a member of the workspace.
  await expectStatus(
    api.call('PUT', `/v1/workspaces/${seed.workspace}/identity`, {
      token: api.operatorKey,
      body: { roles: { payments: 'member', search: 'member' } },
    }),
    200,
  );
  const minted = await expectStatus(
    api.call('POST', `/v1/workspaces/${seed.workspace}/scim-token`, { token: api.operatorKey }),
    201,
  );
  const scim = async (path: string, body: unknown) => {
    const response = await fetch(`${api.url}/scim/v2${path}`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${minted.scim_token as string}`,
        'content-type': 'application/scim+json',
      },
      body: JSON.stringify(body),
    });
    assert.equal(response.status, 201, await response.clone().text());
    return (await response.json()) as { id: string };
  };
  const person = (name: string) =>
    scim('/Users', {
      schemas: ['urn:ietf:params:scim:schemas:core:2.0:User'],
      userName: `${name}-${randomUUID().slice(0, 8)}@acme.test`,
      displayName: name,
    });
  const team = (name: string, member: string) =>
    scim('/Groups', {
      schemas: ['urn:ietf:params:scim:schemas:core:2.0:Group'],
      displayName: name,
      members: [{ value: member }],
    });
  const p1 = (await person('pia')).id;
  const p2 = (await person('paz')).id;
  await team('payments', p1);
  await team('search', p2);
  return { p1, p2 };
}

async function setBudget(api: ApiCaller, body: Record<string, unknown>) {
  return expectStatus<{ id: string }>(
    api.call('POST', '/v1/budgets', { token: api.operatorKey, body }),
    201,
  );
}

type Outcome =
  | { kind: 'answered' }
  | { kind: 'refused'; message: string }
  /** Admitted, and the exchange failed on the way (a 5xx): settled all the same. */
  | { kind: 'failed'; status: number };

/**
 * One request through the SDK: streamed or not, its client maybe gone after the first event. A
 * 503 or 429 (the gate busy: nothing was booked) is sent again, as a runner's SDK does.
 */
async function send(
  sessionToken: string,
  model: string,
  how: 'json' | 'stream' | 'vanish',
): Promise<Outcome> {
  const client = gateClient(h.api, sessionToken);
  const request = { ...smallRequest(maxTokens), model };
  for (let attempt = 1; ; attempt += 1) {
    try {
      if (how === 'json') {
        await client.messages.create(request as never);
      } else {
        const stream = (await client.messages.create({
          ...request,
          stream: true,
        } as never)) as unknown as AsyncIterable<unknown>;
        // Leaving the stream early aborts the request: the client is gone mid-stream.
        const events = stream[Symbol.asyncIterator]();
        while (!(await events.next()).done) {
          if (how === 'vanish') {
            await events.return?.();
            break;
          }
        }
      }
      return { kind: 'answered' };
    } catch (err) {
      const refusal = err as { status?: number; error?: unknown; message?: string };
      if ((refusal.status === 503 || refusal.status === 429) && attempt < 60) {
        await new Promise((resolve) => setTimeout(resolve, 100 + Math.random() * 200));
        continue;
      }
      if (refusal.status === 402) {
        const body = refusal.error as { error: { type: string; message: string } };
        assert.equal(body.error.type, 'billing_error');
        return { kind: 'refused', message: body.error.message };
      }
      // After admission: the upstream unreachable or its stream broken off (an error event).
      assert.ok(
        refusal.status === undefined || refusal.status === 502 || refusal.status === 504,
        String(err),
      );
      return { kind: 'failed', status: refusal.status ?? 0 };
    }
  }
}

const levelOf = (message: string) => /^budget: (.+?) is exhausted/.exec(message)?.[1];

async function windows(workspace: string) {
  const { rows } = await h.db.query(
    `select b.id, b.level, b.max_nanos, b.max_tokens, w.held_nanos, w.used_nanos, w.held_tokens,
       w.used_tokens
     from spend_budgets b join spend_budget_windows w on w.budget_id = b.id
     where b.workspace_id = $1`,
    [workspace],
  );
  return rows.map((r) => ({
    id: r.id as string,
    level: r.level as string,
    max_nanos: r.max_nanos === null ? null : Number(r.max_nanos),
    max_tokens: r.max_tokens === null ? null : Number(r.max_tokens),
    held_nanos: Number(r.held_nanos),
    used_nanos: Number(r.used_nanos),
    held_tokens: Number(r.held_tokens),
    used_tokens: Number(r.used_tokens),
  }));
}

/** Each level's spend recomputed from the usage entries of the exchanges booked under it. */
async function recordedSpend(budgetId: string) {
  const { rows } = await h.db.query(
    `select coalesce(sum(u.cost_nanos), 0)::bigint as nanos,
       coalesce(sum(u.used_tokens), 0)::bigint as tokens
     from model_reservation_holds hd join model_usage u on u.external_id = hd.reservation_id
     where hd.budget_id = $1`,
    [budgetId],
  );
  return { nanos: Number(rows[0].nanos), tokens: Number(rows[0].tokens) };
}

async function noHoldLeft(workspace: string, sessions: string[]) {
  const held = await h.db.query(
    `select count(*)::int as n from model_reservations where session_id = any($1) and status = 'held'`,
    [sessions],
  );
  const levels = await windows(workspace);
  return held.rows[0].n === 0 && levels.every((l) => l.held_nanos === 0 && l.held_tokens === 0);
}

describe('budgets at every level, under load', () => {
  test('200 concurrent requests from three runs of two people in two teams, streamed and not, some clients vanishing mid-stream: no level spends past its cap, refusals name their level, and no hold is left 90 s after the last answer', async () => {
    const seed = await seedWorkspace(h.api);
    const { p1, p2 } = await peopleAndTeams(h.api, seed);
    const provider = await createProvider(h.api, seed, fake.url);
    const run = (invokedBy: string) =>
      createRun(h.api, seed, {
        invoked_by: invokedBy,
        model_provider: provider.id,
        budget: { max_tokens: 10_000_000 },
      });
    const [r1, r2, r3] = [await run(p1), await run(p1), await run(p2)];
    const ws = seed.workspace;
    const caps = {
      run: await setBudget(h.api, {
        workspace: ws,
        level: 'run',
        run: r1.run_id,
        period: 'life',
        max_usd: formatUsd(8 * W),
      }),
      person: await setBudget(h.api, {
        workspace: ws,
        level: 'person',
        person: p2,
        period: 'day',
        max_usd: formatUsd(10 * W),
        max_tokens: 12 * T,
      }),
      payments: await setBudget(h.api, {
        workspace: ws,
        level: 'team',
        team: 'payments',
        period: 'month',
        max_usd: formatUsd(18 * W),
      }),
      search: await setBudget(h.api, {
        workspace: ws,
        level: 'team',
        team: 'search',
        period: 'month',
        max_usd: formatUsd(9 * W),
      }),
      workspace: await setBudget(h.api, {
        workspace: ws,
        level: 'workspace',
        period: 'life',
        max_usd: formatUsd(24 * W),
      }),
    };

    const random = seededRandom(35);
    // Answers take 100 to 600 ms, so holds overlap; a few streams break off upstream after
    // their first events (their output never reported: charged at the booking's).
    fake.setScript((request) => ({
      ...text('ok'),
      usage: reported,
      delayMs: 100 + Math.floor(random() * 500),
      ...(request.body?.stream === true && random() < 0.1 && { breakAfterEvents: 2 }),
    }));
    const plan = [
      ...Array.from({ length: 70 }, () => r1),
      ...Array.from({ length: 70 }, () => r2),
      ...Array.from({ length: 60 }, () => r3),
    ];
    const hows = ['json', 'stream', 'vanish'] as const;
    const sent = plan.map((r) => ({ run: r, how: hows[randomInt(random, 0, 2)]! }));
    const outcomes = await Promise.all(
      sent.map(({ run: r, how }) =>
        send(r.session_token, 'claude-haiku-4-5', how).then((o) => ({ run: r, how, ...o })),
      ),
    );
    const lastAnswer = Date.now();

    const refusals = outcomes.flatMap((o) => (o.kind === 'refused' ? [o] : []));
    assert.ok(refusals.length > 0, 'the caps bind');
    assert.ok(outcomes.length - refusals.length > 0);
    // Each refusal names one of the levels its request falls under.
    const under = new Map([
      [r1.run_id, ['run, life', 'team "payments", month', 'workspace, life']],
      [r2.run_id, ['team "payments", month', 'workspace, life']],
      [r3.run_id, ['person "paz", day', 'team "search", month', 'workspace, life']],
    ]);
    for (const refusal of refusals) {
      const level = levelOf(refusal.message);
      assert.ok(
        level !== undefined && under.get(refusal.run.run_id)!.includes(level),
        `${refusal.run.run_id}: ${refusal.message}`,
      );
    }

    const sessions = [r1, r2, r3].map((r) => r.session_id);
    // Each request settles its own hold; a hold it left would stay until the sweep, minutes
    // later (the reservation's TTL). The settlements queue on the workspace's window with the
    // admissions: with another suite beside this one, the last of them settled over 30 s after
    // the last answer.
    await until(() => noHoldLeft(ws, sessions), 'every hold settled', 90_000);
    assert.ok(Date.now() - lastAnswer <= 90_000);

    const levels = await windows(ws);
    assert.equal(levels.length, Object.keys(caps).length);
    for (const level of levels) {
      const label = `${level.level} ${level.id}`;
      if (level.max_nanos !== null) assert.ok(level.used_nanos <= level.max_nanos, label);
      if (level.max_tokens !== null) assert.ok(level.used_tokens <= level.max_tokens, label);
      // The counters agree with the costs recorded for the exchanges booked under the level.
      const spent = await recordedSpend(level.id);
      assert.equal(level.used_nanos, spent.nanos, label);
      assert.equal(level.used_tokens, spent.tokens, label);
    }
    // Every admitted exchange was settled with a cost; every refused one booked nothing.
    const { rows } = await h.db.query(
      `select r.status, u.cost_nanos from model_reservations r
       left join model_usage u on u.external_id = r.id where r.session_id = any($1)`,
      [sessions],
    );
    assert.equal(rows.length, 200);
    assert.equal(rows.filter((r) => r.status === 'refused').length, refusals.length);
    for (const row of rows.filter((r) => r.status !== 'refused')) {
      assert.equal(row.status, 'reconciled');
      assert.ok(Number(row.cost_nanos) >= c);
    }
  }, 300_000);

  test('each level binds in turn and its refusals name it: the run, a team, a person (in tokens), the workspace', async () => {
    const seed = await seedWorkspace(h.api);
    const { p1, p2 } = await peopleAndTeams(h.api, seed);
    const provider = await createProvider(h.api, seed, fake.url);
    const run = (invokedBy: string) =>
      createRun(h.api, seed, {
        invoked_by: invokedBy,
        model_provider: provider.id,
        budget: { max_tokens: 10_000_000 },
      });
    const [r1, r2, r3] = [await run(p1), await run(p1), await run(p2)];
    const ws = seed.workspace;
    await setBudget(h.api, {
      workspace: ws,
      level: 'run',
      run: r1.run_id,
      period: 'life',
      max_usd: formatUsd(10 * W),
    });
    await setBudget(h.api, {
      workspace: ws,
      level: 'team',
      team: 'payments',
      period: 'month',
      max_usd: formatUsd(25 * W),
    });
    await setBudget(h.api, {
      workspace: ws,
      level: 'person',
      person: p2,
      period: 'day',
      max_tokens: 15 * T,
    });
    const workspaceCap = 40 * W;
    await setBudget(h.api, {
      workspace: ws,
      level: 'workspace',
      period: 'life',
      max_usd: formatUsd(workspaceCap),
    });

    /**
     * One wave: 40 requests of one run at once, the upstream holding every answer until each
     * request is refused or has reached it; then all are answered and settled.
     */
    const wave = async (r: { session_id: string; session_token: string }, model: string) => {
      let release!: () => void;
      const released = new Promise<void>((resolve) => {
        release = resolve;
      });
      fake.setScript(() => ({ ...text('ok'), usage: reported, waitFor: released }));
      const before = fake.messages().length;
      let refused = 0;
      const outcomes = Array.from({ length: 40 }, (_, i) =>
        send(r.session_token, model, (['json', 'stream', 'vanish'] as const)[i % 3]!).then((o) => {
          if (o.kind === 'refused') refused += 1;
          return o;
        }),
      );
      await until(() => refused + fake.messages().length - before === 40, 'the wave decided');
      release();
      const settled = await Promise.all(outcomes);
      await until(() => noHoldLeft(ws, [r.session_id]), 'the wave settled');
      return {
        admitted: settled.filter((o) => o.kind !== 'refused').length,
        levels: new Set(settled.map((o) => (o.kind === 'refused' ? levelOf(o.message) : 'none'))),
      };
    };

    // The run's cap is the tightest of r1's levels.
    const w1 = await wave(r1, 'claude-haiku-4-5');
    assert.equal(w1.admitted, 10);
    assert.deepEqual(w1.levels, new Set(['none', 'run, life']));
    // r2 has no cap of its own; its person's team has 25 bookings less what r1 spent.
    const w2 = await wave(r2, 'claude-haiku-4-5');
    assert.equal(w2.admitted, Math.floor((25 * W - 10 * c) / W));
    assert.deepEqual(w2.levels, new Set(['none', 'team "payments", month']));
    // p2's cap is in tokens: 15 bookings.
    const w3 = await wave(r3, 'claude-haiku-4-5');
    assert.equal(w3.admitted, 15);
    assert.deepEqual(w3.levels, new Set(['none', 'person "paz", day']));
    // Opus books 15 times the money for the same tokens: the workspace's money runs out first.
    const spent = (10 + w2.admitted + 15) * c;
    const w4 = await wave(r3, 'claude-opus-4-1');
    assert.equal(worstCaseCost(opus, booking), 15 * W);
    assert.equal(w4.admitted, Math.floor((workspaceCap - spent) / (15 * W)));
    assert.deepEqual(w4.levels, new Set(['none', 'workspace, life']));

    for (const level of await windows(ws)) {
      if (level.max_nanos !== null) assert.ok(level.used_nanos <= level.max_nanos);
      if (level.max_tokens !== null) assert.ok(level.used_tokens <= level.max_tokens);
      assert.deepEqual(await recordedSpend(level.id), {
        nanos: level.used_nanos,
        tokens: level.used_tokens,
      });
    }
  });
});
