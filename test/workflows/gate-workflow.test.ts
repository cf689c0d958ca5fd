/**
 * Every path of the gate workflow, run in this process against fake activities: each stage
 * denying and failing closed, the approval pause (signal, re-check timer, expiry), autonomy,
 * brokered execution and re-attaching updates. Timers are made short through the request's
 * approval_recheck_s and short expiries.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'vitest';
import { ApplicationFailure } from '@temporalio/common';
import type { ApprovalState } from '../../src/activities/approval.js';
import type {
  DecidedAnswer,
  DenySource,
  GateAnswer,
  GateRequest,
  GateSettings,
  PolicyOutcome,
  StageOutcome,
} from '../../src/domain/gate/vocabulary.js';
import { stateQuery } from '../../src/workflows/messages.js';
import {
  allowByRule,
  pendingFor,
  useInProcessGate,
  type ScriptedCall,
} from '../support/in-process-gate.js';
import { waitsOf } from '../support/temporal.js';

const gate = useInProcessGate();
const bound = { timeout: 30_000 };

/** Sends the call as the API does (update-with-start) and returns the answer the runner gets. */
async function ask(call: ScriptedCall): Promise<GateAnswer> {
  const answer = await gate.client.ask(call.input, 20_000);
  assert.notEqual(answer, 'closed');
  return answer as GateAnswer;
}

/** The answer of a call that must be decided at once. */
async function decided(call: ScriptedCall): Promise<DecidedAnswer> {
  const answer = await ask(call);
  assert.equal(answer.status, 'decided', JSON.stringify(answer));
  return answer;
}
const result = (call: ScriptedCall) =>
  gate.env.client.workflow.getHandle(call.workflowId).result() as Promise<GateAnswer>;

const deny = (source: DenySource, reason: string, extra = {}): StageOutcome => ({
  outcome: 'deny',
  source,
  reason,
  ...extra,
});
const approved: ApprovalState = {
  status: 'decided',
  answer: { status: 'decided', decision: 'allow', reason: 'approved by ana', rule_id: 'ask' },
};
const requireApproval: PolicyOutcome = {
  ...allowByRule,
  verdict: 'require_approval',
  original_verdict: 'require_approval',
  rule_id: 'ask',
} as PolicyOutcome;
const stages = ['budget', 'capability', 'schema', 'trustTier', 'policy'] as const;

/** A call asking for approval that no signal wakes, whose row reads decided on its third check. */
const approvedOnThirdCheck = async (request: Partial<GateRequest & GateSettings>) => {
  let checks = 0;
  const call = gate.call(
    {
      policy: () => requireApproval,
      checkApproval: () => {
        checks += 1;
        return checks < 3 ? { status: 'pending', expires_at: '' } : approved;
      },
    },
    request,
  );
  assert.equal((await ask(call)).status, 'pending_approval');
  assert.deepEqual(await result(call), approved.answer);
  return { call, checks: () => checks };
};

describe('the stages, in order', bound, () => {
  test('a call every stage passes is allowed by policy and recorded once', async () => {
    const call = gate.call();
    const answer = await ask(call);
    assert.deepEqual(answer, {
      status: 'decided',
      decision: 'allow',
      reason: 'allowed by rule "reads"',
      rule_id: 'reads',
    });
    assert.deepEqual(call.calls(), [...stages, 'recordDecision']);
    const [, decision] = call.onlyArgs('recordDecision');
    assert.equal(decision.stage, 'policy');
    assert.equal(decision.verdict, 'allow');
    assert.deepEqual(await result(call), answer);
  });

  test('a call started before the split, flat and stage by stage, runs each stage as its own activity, with the same answer', async () => {
    const call = gate.call();
    await gate.startFlat(call, 'remote');
    assert.equal((await decided(call)).decision, 'allow');
    assert.deepEqual(call.calls(), [...stages, 'recordDecision']);
  });

  const denials: [(typeof stages)[number], StageOutcome | PolicyOutcome, DenySource][] = [
    ['budget', deny('budget', 'spent'), 'budget'],
    ['capability', deny('capability', 'not frozen'), 'capability'],
    ['capability', deny('binding', 'stale binding'), 'binding'],
    [
      'schema',
      deny('schema', 'bad /path', { render: 'tool_error', ledger_reason: 'bad (1)' }),
      'schema',
    ],
    ['trustTier', deny('trust_tier', 'read_only'), 'trust_tier'],
    ['policy', deny('capability', 'not frozen'), 'capability'],
    [
      'policy',
      { ...allowByRule, verdict: 'deny', original_verdict: 'deny', rule_id: 'no' } as PolicyOutcome,
      'policy',
    ],
  ];
  for (const [stage, outcome, source] of denials) {
    test(`the ${stage} stage denying with source=${source} decides, and no later stage runs`, async () => {
      const call = gate.call({ [stage]: () => outcome });
      const answer = await decided(call);
      assert.equal(answer.decision, 'deny');
      assert.equal(answer.source, source);
      const upTo = stages.indexOf(stage) + 1;
      assert.deepEqual(call.calls(), [...stages.slice(0, upTo), 'recordDecision']);
      const [, decision] = call.onlyArgs('recordDecision');
      assert.equal(decision.stage, source);
      if (source === 'schema') {
        assert.equal(answer.render, 'tool_error');
        assert.equal(decision.ledger_reason, 'bad (1)');
      }
    });
  }
});

describe('every stage fails closed', { ...bound, concurrent: true }, () => {
  for (const stage of stages) {
    test(`a ${stage} stage that cannot answer is retried, then denies with its own source`, async () => {
      const failing = () => {
        throw new Error(`injected ${stage} failure`);
      };
      // Every other stage passes and the policy allows: only the failing stage can deny.
      const call = gate.call({ [stage]: failing });
      const answer = await decided(call);
      const source = stage === 'trustTier' ? 'trust_tier' : stage;
      assert.equal(answer.decision, 'deny');
      assert.equal(answer.source, source);
      assert.match(
        answer.reason,
        new RegExp(
          `^the ${source} stage could not decide \\(.*injected ${stage} failure\\); failing closed$`,
        ),
      );
      assert.equal(call.calls().filter((c) => c === stage).length, 3);
      assert.equal(call.calls().at(-1), 'recordDecision');
    });
  }

  test('recording the decision is retried until the state of record takes it', async () => {
    let attempts = 0;
    const call = gate.call({
      recordDecision: (_request, decision) => {
        attempts += 1;
        if (attempts < 3) throw new Error('PostgreSQL is away');
        return decision.answer;
      },
    });
    assert.equal((await decided(call)).decision, 'allow');
    assert.equal(attempts, 3);
  });

  test('a decision the state of record refuses is replaced by a recorded fail-closed deny', async () => {
    const call = gate.call({
      recordDecision: (_request, decision) => {
        if (decision.answer.decision === 'allow')
          throw ApplicationFailure.nonRetryable('invalid input syntax');
        return decision.answer;
      },
    });
    const answer = await decided(call);
    assert.equal(answer.decision, 'deny');
    assert.equal(answer.source, 'policy');
    assert.match(answer.reason, /the decision could not be recorded/);
    assert.deepEqual(call.calls().slice(-2), ['recordDecision', 'recordDecision']);
    const [, fallback] = call.argsOf('recordDecision')[1] ?? [];
    assert.equal(fallback?.ledger_reason, 'the policy stage could not decide; failing closed');
    assert.deepEqual(await result(call), answer);
  });

  test('when nothing can be recorded, the gate still ends, with a deny', async () => {
    const call = gate.call({
      recordDecision: () => {
        throw ApplicationFailure.nonRetryable('PostgreSQL refuses everything');
      },
    });
    const answer = await decided(call);
    assert.equal(answer.decision, 'deny');
    assert.deepEqual(await result(call), answer);
  });

  test('an approval that cannot be written fails closed as a recorded approval deny', async () => {
    const call = gate.call({
      policy: () => requireApproval,
      requestApproval: () => {
        throw ApplicationFailure.nonRetryable('cannot store');
      },
    });
    const answer = await decided(call);
    assert.equal(answer.source, 'approval');
    assert.equal(call.calls().at(-1), 'recordDecision');
  });
});

/** What the driver throws when PostgreSQL is not there. */
const refused = () =>
  Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });

describe('a stage that cannot reach its data', { ...bound, concurrent: true }, () => {
  test('is tried again through the window while PostgreSQL is away, then decides on its merits: an allow stays an allow', async () => {
    let attempts = 0;
    const call = gate.call(
      {
        budget: () => {
          attempts += 1;
          if (attempts <= 4) throw refused();
          return { outcome: 'pass' };
        },
      },
      { unavailable_window_s: 30 },
    );
    const answer = await decided(call);
    assert.equal(answer.decision, 'allow');
    assert.equal(attempts, 5, 'more attempts than the three a failing stage gets');
    assert.equal(call.onlyArgs('recordDecision')[1].stage, 'policy');
  });

  for (const stageByStage of [false, true]) {
    const how = stageByStage ? 'a call started flat, stage by stage' : 'the stages in one activity';
    test(`past the window it fails closed as the gate's unavailability, not as the stage (${how})`, async () => {
      const call = gate.call(
        {
          budget: () => {
            throw refused();
          },
        },
        { unavailable_window_s: 2 },
      );
      if (stageByStage) await gate.startFlat(call, 'remote');
      const answer = await decided(call);
      assert.equal(answer.decision, 'deny');
      assert.equal(answer.source, 'unavailable');
      // The cause is the stage's last failure, or, on a machine too loaded to run an attempt
      // before the window ends, the activity's own timeout.
      assert.match(
        answer.reason,
        /^the gate was unavailable: it could not reach its state of record in time( at the budget stage)? \((.*ECONNREFUSED.*|.*timeout|.* within the 2 s window|Activity timed out)\); failing closed$/,
      );
      assert.equal(call.calls().includes('capability'), false);
      // The ledger keeps the stage it stopped at when the last failure names it (a retry refused
      // for starting past the window does not), and never the driver's text.
      const [, decision] = call.onlyArgs('recordDecision');
      assert.ok(['budget', 'unavailable'].includes(decision.stage), decision.stage);
      assert.match(
        decision.ledger_reason ?? '',
        /^the gate was unavailable: it could not reach its state of record in time( at the budget stage)?; failing closed$/,
      );
    });
  }

  test('any other failure is no outage: three attempts, then the stage denies with its own source, window or not', async () => {
    const call = gate.call(
      {
        policy: () => {
          throw new Error('a bug');
        },
      },
      { unavailable_window_s: 30 },
    );
    const answer = await decided(call);
    assert.equal(answer.source, 'policy');
    assert.equal(call.calls().filter((c) => c === 'policy').length, 3);
  });

  test("a decision the state of record stayed out of reach for, past the recorder's bound, is replaced by the unavailability deny, recorded", async () => {
    let attempts = 0;
    const call = gate.call(
      {
        recordDecision: (_request, decision) => {
          attempts += 1;
          // First the stages' own activity, then the recorder giving up at its bound.
          if (attempts === 1)
            throw ApplicationFailure.retryable('Query read timeout', 'GateUnavailable');
          if (attempts === 2)
            throw ApplicationFailure.nonRetryable('Query read timeout', 'GateUnavailable');
          return decision.answer;
        },
      },
      { unavailable_window_s: 30 },
    );
    const answer = await decided(call);
    assert.equal(answer.source, 'unavailable');
    assert.match(answer.reason, /\(the decision could not be recorded: Query read timeout\)/);
    const [, allowed] = call.argsOf('recordDecision')[1] ?? [];
    assert.equal(allowed?.answer.decision, 'allow');
    const [, fallback] = call.argsOf('recordDecision')[2] ?? [];
    assert.equal(fallback?.stage, 'policy');
  });
});

describe('autonomy', bound, () => {
  test('require_approval rewritten to the fallback decides at once, naming the rewrite, with no approval', async () => {
    const call = gate.call({
      policy: () => ({ ...requireApproval, verdict: 'allow' }) as PolicyOutcome,
    });
    const answer = await decided(call);
    assert.equal(
      answer.reason,
      'allowed by rule "ask" (the autonomous fallback for require_approval)',
    );
    assert.equal(call.calls().includes('requestApproval'), false);
    const [, decision] = call.onlyArgs('recordDecision');
    assert.equal(decision.verdict, 'allow');
    assert.equal(decision.original_verdict, 'require_approval');
  });
});

describe('the approval pause', { ...bound, concurrent: true }, () => {
  test('the runner is told pending at once; a wake-up signal makes the workflow re-read the row and finish with it', async () => {
    let row: ApprovalState = { status: 'pending', expires_at: '' };
    const call = gate.call({ policy: () => requireApproval, checkApproval: () => row });
    const pending = await ask(call);
    assert.equal(pending.status, 'pending_approval');
    const [, ruling] = call.onlyArgs('requestApproval');
    assert.equal(ruling.rule_id, 'ask');
    const handle = gate.env.client.workflow.getHandle(call.workflowId);
    assert.deepEqual(await handle.query(stateQuery), pending);

    row = approved;
    gate.client.wake(call.request.session_id, call.request.tool_call_id);
    assert.deepEqual(await result(call), approved.answer);
    // The re-check timer is a minute: only the signal can have woken it.
    assert.equal(call.argsOf('checkApproval').length, 1);
    assert.equal(call.calls().includes('recordDecision'), false);
  });

  test('without any signal, the re-check timer reads the row until it is decided', async () => {
    const { checks } = await approvedOnThirdCheck({ approval_recheck_s: 0.2 });
    assert.equal(checks(), 3);
  });

  test('unwoken, each re-check waits twice as long as the one before, up to approval_recheck_max_s', async () => {
    const { call, checks } = await approvedOnThirdCheck({
      approval_recheck_s: 1,
      approval_recheck_max_s: 2,
    });
    // The workflow's own timers, as its history holds them: 1 s, 2 s, then 2 s again (the cap)
    // where doubling on would wait 4 s; each fired (no signal), then the row was read.
    const waits = await waitsOf(gate.env.client, call.workflowId);
    assert.deepEqual(waits.timersMs, [1000, 2000, 2000]);
    assert.equal(waits.fired, 3);
    assert.deepEqual(waits.signals, []);
    assert.equal(checks(), 3);
  });

  test('at the expiry the row is settled with on_timeout, by the same compare-and-swap', async () => {
    const expired: ApprovalState = {
      status: 'decided',
      answer: { status: 'decided', decision: 'allow', reason: 'the approval expired' },
    };
    const call = gate.call({
      policy: () => requireApproval,
      requestApproval: pendingFor(300),
      expireApproval: () => expired,
    });
    assert.equal((await ask(call)).status, 'pending_approval');
    assert.deepEqual(await result(call), expired.answer);
    assert.deepEqual(call.calls().slice(-1), ['expireApproval']);
    assert.equal(call.calls().includes('checkApproval'), false);
  });

  test('a refused expiry (the database clock not there yet) is tried again a second later, not at once', async () => {
    let attempts = 0;
    const call = gate.call({
      policy: () => requireApproval,
      requestApproval: pendingFor(100),
      expireApproval: () => {
        attempts += 1;
        return attempts === 1 ? { status: 'pending', expires_at: '' } : approved;
      },
    });
    await ask(call);
    assert.deepEqual(await result(call), approved.answer);
    const [first, second] = call.invocations.filter((i) => i.activity === 'expireApproval');
    assert.ok(second!.at - first!.at >= 900, `retried after ${second!.at - first!.at} ms`);
  });
});

describe('brokered execution', bound, () => {
  test('an allowed call with execute is carried out, and its result is part of the answer', async () => {
    const call = gate.call(
      {
        broker: (_request, answer) => ({
          ...answer,
          result: { content: [{ type: 'text', text: 'done' }] },
        }),
      },
      { execute: true },
    );
    const answer = await decided(call);
    assert.deepEqual(answer.result, { content: [{ type: 'text', text: 'done' }] });
    assert.deepEqual(call.calls().slice(-2), ['recordDecision', 'broker']);
  });

  test('a denied call with execute is never carried out', async () => {
    const call = gate.call({ trustTier: () => deny('trust_tier', 'read_only') }, { execute: true });
    assert.equal((await decided(call)).decision, 'deny');
    assert.equal(call.calls().includes('broker'), false);
  });

  test("a broker whose every attempt fails: the call is recorded allowed with a tool error in the gate's words, not left evaluating, not retried forever", async () => {
    const call = gate.call(
      {
        broker: () => {
          throw ApplicationFailure.nonRetryable('upstream gone');
        },
        recordBrokerFailure: (_request, failed) => ({ ...failed, reason: 'as recorded' }),
      },
      { execute: true },
    );
    const answer = await decided(call);
    const failed = {
      status: 'decided',
      decision: 'allow',
      reason: 'allowed by rule "reads"',
      rule_id: 'reads',
      result: {
        isError: true,
        content: [{ type: 'text', text: 'the call could not be carried out (the broker failed)' }],
      },
    };
    assert.deepEqual(call.onlyArgs('recordBrokerFailure')[1], failed);
    assert.deepEqual(answer, { ...failed, reason: 'as recorded' });
    assert.deepEqual(call.calls().slice(-3), ['recordDecision', 'broker', 'recordBrokerFailure']);
  });

  test('a broker attempt that throws is retried, three attempts in all, before the failure is recorded', async () => {
    const call = gate.call(
      {
        broker: () => {
          throw new Error('PostgreSQL is away');
        },
      },
      { execute: true },
    );
    const answer = await decided(call);
    assert.equal(call.calls().filter((c) => c === 'broker').length, 3);
    assert.match(JSON.stringify(answer.result), /could not be carried out \(the broker failed\)/);
    assert.doesNotMatch(JSON.stringify(answer.result), /PostgreSQL is away/);
    assert.equal(call.calls().at(-1), 'recordBrokerFailure');
  });

  test('a broker that denies at the call (the tool changed while it waited) answers that deny', async () => {
    const denial: DecidedAnswer = {
      status: 'decided',
      decision: 'deny',
      source: 'capability',
      reason: 'drifted (checked at the call; nothing was executed)',
    };
    const call = gate.call({ broker: () => denial }, { execute: true });
    assert.deepEqual(await decided(call), denial);
    assert.equal(call.calls().includes('recordBrokerFailure'), false);
  });
});

describe('re-attaching updates', bound, () => {
  test('the same call sent again while a stage works lands on the same workflow: one evaluation, one answer', async () => {
    let release!: () => void;
    const gateOpen = new Promise<void>((resolve) => (release = resolve));
    // Regular activities (a call started flat, stage by stage), so the workflow task is done
    // while the stage works and queries answer.
    const call = gate.call({
      budget: async () => {
        await gateOpen;
        return { outcome: 'pass' };
      },
    });
    await gate.startFlat(call, 'remote');
    const first = ask(call);
    const handle = gate.env.client.workflow.getHandle(call.workflowId);
    await waitUntil(() => call.calls().includes('budget'));
    assert.deepEqual(await handle.query(stateQuery), { status: 'evaluating' });
    const second = ask(call);
    release();
    const [a, b] = await Promise.all([first, second]);
    assert.deepEqual(a, b);
    assert.deepEqual(call.calls(), [...stages, 'recordDecision']);
  });

  test('a paused call sent again gets the same pending answer; once closed, sending it again starts nothing', async () => {
    let row: ApprovalState = { status: 'pending', expires_at: '' };
    const call = gate.call({ policy: () => requireApproval, checkApproval: () => row });
    const pending = await ask(call);
    assert.deepEqual(await ask(call), pending);
    assert.equal(call.argsOf('requestApproval').length, 1);
    row = approved;
    gate.client.wake(call.request.session_id, call.request.tool_call_id);
    await result(call);
    const handle = gate.env.client.workflow.getHandle(call.workflowId);
    const { runId } = await handle.describe();
    const evaluated = call.calls().length;
    // The API answers a decided call from its record; the workflow is never run a second time.
    await gate.client.ask(call.input, 20_000);
    assert.equal((await handle.describe()).runId, runId);
    assert.equal(call.calls().length, evaluated);
  });
});

async function waitUntil(probe: () => boolean) {
  while (!probe()) await new Promise((resolve) => setTimeout(resolve, 20));
}
