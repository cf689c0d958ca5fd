import assert from 'node:assert/strict';
import { describe, test } from 'vitest';
import {
  budgetVerdict,
  capabilityVerdict,
  notFrozen,
  policyVerdict,
  schemaVerdict,
  trustTierVerdict,
  type CalledTool,
  type ConnectionState,
} from '../../../src/domain/gate/stage-verdicts.js';
import type { PolicyRuling, StageOutcome } from '../../../src/domain/gate/vocabulary.js';
import type { PolicyBody } from '../../../src/domain/policy/policy.js';
import { toolDigest, type FrozenTool } from '../../../src/domain/tools/tools.js';

const schema = {
  type: 'object',
  properties: { path: { type: 'string' } },
  required: ['path'],
  additionalProperties: false,
};

function frozen(overrides: Partial<FrozenTool> = {}): FrozenTool {
  const entry = {
    name: overrides.name ?? 'Read',
    description: '',
    input_schema: overrides.input_schema ?? schema,
    effect: overrides.effect ?? 'read',
  };
  return {
    ...entry,
    digest: toolDigest(entry),
    class: 'sandbox',
    origin: { kind: 'bundle', bundle_id: 'b1' },
    binding: null,
    callable: true,
    ...overrides,
  };
}

/** A tool of a brokered connection, frozen under generation 1. */
function brokered(overrides: Partial<FrozenTool> = {}): FrozenTool {
  return frozen({
    name: 'mcp__notes__search',
    class: 'brokered',
    origin: { kind: 'connection', connection_id: 'c1' },
    binding: { connection_id: 'c1', auth_generation: 1, owner_user_id: null },
    ...overrides,
  });
}

const called = (tool: FrozenTool | undefined, name = tool?.name ?? 'Nope'): CalledTool => ({
  name,
  frozen: tool,
});
const pass: StageOutcome = { outcome: 'pass' };
const denies = (outcome: StageOutcome, source: string, reason: RegExp) => {
  assert.equal(outcome.outcome, 'deny', JSON.stringify(outcome));
  assert.equal(outcome.source, source);
  assert.match(outcome.reason, reason);
};

describe('one behaviour for a tool the run did not freeze', () => {
  const missing = called(undefined, 'WebFetch');
  const cases: [string, StageOutcome | ReturnType<typeof policyVerdict>][] = [
    ['capability', capabilityVerdict(missing, undefined)],
    ['schema', schemaVerdict(missing, {})],
    ['trust tier (read_only)', trustTierVerdict('read_only', missing)],
    ['trust tier (trusted)', trustTierVerdict('trusted', missing)],
    [
      'policy',
      policyVerdict(
        { id: 'p', version: 1, body: policyBody({ rules: [], default: 'allow' }) },
        'supervised',
        missing,
        {},
      ),
    ],
  ];
  for (const [stage, outcome] of cases) {
    test(`noticed at ${stage}: a capability deny naming the tool to the runner, not the ledger`, () => {
      assert.deepEqual(outcome, notFrozen('WebFetch'));
      assert.deepEqual(outcome, {
        outcome: 'deny',
        source: 'capability',
        reason: `tool "WebFetch" is not in the run's frozen tool set`,
        ledger_reason: "the tool is not in the run's frozen tool set",
        tool_unfrozen: true,
      });
    });
  }
});

describe('stage 1: budget', () => {
  const cases: [
    string,
    { max_tokens: number; held_tokens: number; used_tokens: number },
    boolean,
  ][] = [
    ['nothing spent', { max_tokens: 100, held_tokens: 0, used_tokens: 0 }, true],
    ['one token left', { max_tokens: 100, held_tokens: 49, used_tokens: 50 }, true],
    [
      'used and held reach the allowance',
      { max_tokens: 100, held_tokens: 50, used_tokens: 50 },
      false,
    ],
    ['held alone reaches it', { max_tokens: 100, held_tokens: 100, used_tokens: 0 }, false],
    ['usage reported past it', { max_tokens: 100, held_tokens: 0, used_tokens: 130 }, false],
  ];
  for (const [name, budget, passes] of cases) {
    test(`${name}: ${passes ? 'pass' : 'deny with source=budget'}`, () => {
      const outcome = budgetVerdict(budget);
      if (passes) assert.deepEqual(outcome, pass);
      else
        assert.deepEqual(outcome, {
          outcome: 'deny',
          source: 'budget',
          reason: `the run's token budget is spent: ${budget.used_tokens} used and ${budget.held_tokens} held of ${budget.max_tokens}`,
        });
    });
  }
});

describe('stage 1: budget at the levels above the run', () => {
  const room = { max_tokens: 100, held_tokens: 0, used_tokens: 0 };
  const level = {
    kind: 'team' as const,
    name: 'payments',
    period: 'month' as const,
    max_nanos: 1_000,
    max_tokens: null,
    held_nanos: 0,
    used_nanos: 0,
    held_tokens: 0,
    used_tokens: 0,
  };
  test('a level with room passes; one whose spend and holds reach its cap denies, naming it', () => {
    assert.deepEqual(budgetVerdict(room, [{ ...level, used_nanos: 600, held_nanos: 399 }]), pass);
    assert.deepEqual(budgetVerdict(room, [{ ...level, used_nanos: 600, held_nanos: 400 }]), {
      outcome: 'deny',
      source: 'budget',
      reason: 'budget: team "payments", month is spent',
    });
    assert.deepEqual(
      budgetVerdict(room, [{ ...level, max_nanos: null, max_tokens: 5, used_tokens: 5 }]).outcome,
      'deny',
    );
  });
});

describe('stage 2: frozen tool set and binding', () => {
  const tool = brokered();
  const live: ConnectionState = {
    status: 'active',
    auth_generation: 1,
    tools: [{ name: tool.name, digest: tool.digest }],
  };
  const cases: [string, FrozenTool, ConnectionState | undefined, string | null, RegExp?][] = [
    ['a sandbox tool, never looked up', frozen(), undefined, null],
    ['a brokered tool exactly as frozen', tool, live, null],
    [
      'a brokered tool without a binding',
      brokered({ binding: null }),
      live,
      'binding',
      /no binding/,
    ],
    ['its connection gone', tool, undefined, 'binding', /is gone/],
    ['its connection revoked', tool, { ...live, status: 'revoked' }, 'binding', /is revoked/],
    ['withdrawn by its server', tool, { ...live, tools: [] }, 'capability', /was withdrawn/],
    [
      'changed by its server (drift)',
      tool,
      { ...live, tools: [{ name: tool.name, digest: 'sha256:other' }] },
      'capability',
      /drifted/,
    ],
    [
      'reauthorized since (stale binding)',
      tool,
      { ...live, auth_generation: 2 },
      'binding',
      /reauthorized.*stale binding/,
    ],
  ];
  for (const [name, frozenTool, connection, source, reason] of cases) {
    test(`${name}: ${source ? `deny with source=${source}` : 'pass'}`, () => {
      const outcome = capabilityVerdict(called(frozenTool), connection);
      if (source === null) assert.deepEqual(outcome, pass);
      else denies(outcome, source, reason ?? /./);
    });
  }

  test('drift is checked before the generation: a changed tool is a capability deny', () => {
    const outcome = capabilityVerdict(called(tool), {
      status: 'active',
      auth_generation: 2,
      tools: [{ name: tool.name, digest: 'sha256:other' }],
    });
    denies(outcome, 'capability', /drifted/);
  });
});

describe('stage 3: frozen argument schema', () => {
  test('arguments matching the frozen schema pass', () => {
    assert.deepEqual(schemaVerdict(called(frozen()), { path: 'README.md' }), pass);
  });

  test('arguments that do not match deny with source=schema, rendered as a tool error; the ledger reason only counts the paths', () => {
    const outcome = schemaVerdict(called(frozen()), { path: 7, secret_key: 'x' });
    assert.equal(outcome.outcome, 'deny');
    assert.equal(outcome.source, 'schema');
    assert.equal(outcome.render, 'tool_error');
    assert.match(outcome.reason, /do not match the schema of "Read"/);
    assert.match(outcome.ledger_reason ?? '', /\(\d+ failing paths?\)$/);
    assert.equal(outcome.ledger_reason?.includes('secret_key'), false);
  });

  test('a tool frozen as uncallable is denied with its reason, whatever the arguments', () => {
    const tool = frozen({ callable: false, uncallable_reason: 'a $ref is not local' });
    const outcome = schemaVerdict(called(tool), { path: 'a' });
    assert.deepEqual(outcome, {
      outcome: 'deny',
      source: 'schema',
      reason: '"Read" is uncallable: its schema failed the guard (a $ref is not local)',
      render: 'tool_error',
    });
  });

  test('a schema that cannot validate anything makes the tool uncallable', () => {
    const tool = frozen({
      input_schema: { type: 'object', properties: { a: { $ref: '#/nope' } } },
    });
    denies(schemaVerdict(called(tool), { a: 1 }), 'schema', /is uncallable/);
  });
});

describe('stage 4: trust tier', () => {
  const cases: [string, 'trusted' | 'read_only', FrozenTool, RegExp | null][] = [
    ['a trusted run writes', 'trusted', frozen({ name: 'Bash', effect: 'write' }), null],
    ['a trusted run uses a credential', 'trusted', brokered({ effect: 'write' }), null],
    ['a read_only run reads', 'read_only', frozen(), null],
    [
      'a read_only run may not write',
      'read_only',
      frozen({ name: 'Bash', effect: 'write' }),
      /"Bash" may write/,
    ],
    [
      'a read_only run may not use a sealed credential, even to read',
      'read_only',
      brokered({ effect: 'read' }),
      /uses a sealed credential/,
    ],
  ];
  for (const [name, tier, tool, reason] of cases) {
    test(`${name}: ${reason ? 'deny with source=trust_tier' : 'pass'}`, () => {
      const outcome = trustTierVerdict(tier, called(tool));
      if (reason === null) assert.deepEqual(outcome, pass);
      else denies(outcome, 'trust_tier', reason);
    });
  }
});

function policyBody(overrides: Partial<PolicyBody> = {}): PolicyBody {
  return {
    workspace: '00000000-0000-4000-8000-000000000000',
    name: 'p',
    rules: [
      { id: 'reads', match: { effect: 'read' }, verdict: 'allow' },
      {
        id: 'no-rm',
        match: { tool: 'Bash', args: [{ path: '/command', op: 'glob', value: 'rm *' }] },
        verdict: 'deny',
      },
      { id: 'ask', match: { tool: 'Bash' }, verdict: 'require_approval' },
    ],
    default: 'deny',
    autonomous_fallback: 'allow',
    approval: { timeout_s: 60, on_timeout: 'deny' },
    ...overrides,
  };
}

describe('stage 5: policy, then autonomy', () => {
  const policy = { id: 'pol', version: 3, body: policyBody() };
  const bash = frozen({ name: 'Bash', effect: 'write' });
  const cases: [
    string,
    FrozenTool,
    unknown,
    'supervised' | 'autonomous',
    string,
    string,
    string | null,
  ][] = [
    ['a read the policy allows', frozen(), { path: 'a' }, 'supervised', 'allow', 'allow', 'reads'],
    [
      'an argument rule denies',
      bash,
      { command: 'rm -rf /' },
      'supervised',
      'deny',
      'deny',
      'no-rm',
    ],
    [
      'a supervised run is asked',
      bash,
      { command: 'make' },
      'supervised',
      'require_approval',
      'require_approval',
      'ask',
    ],
    [
      'an autonomous run gets the fallback, both verdicts kept',
      bash,
      { command: 'make' },
      'autonomous',
      'allow',
      'require_approval',
      'ask',
    ],
    [
      'autonomy leaves a deny alone',
      bash,
      { command: 'rm x' },
      'autonomous',
      'deny',
      'deny',
      'no-rm',
    ],
    [
      'no rule matches: the default',
      frozen({ name: 'Other', effect: 'write' }),
      {},
      'supervised',
      'deny',
      'deny',
      null,
    ],
  ];
  for (const [name, tool, args, autonomy, verdict, original, rule] of cases) {
    test(`${name}: ${verdict}`, () => {
      const { matched, ...ruling } = policyVerdict(
        policy,
        autonomy,
        called(tool),
        args,
      ) as PolicyRuling;
      assert.equal(matched === undefined, rule === null, "a matched rule's conditions are kept");
      assert.deepEqual(ruling, {
        outcome: 'verdict',
        verdict,
        original_verdict: original,
        rule_id: rule,
        policy_id: 'pol',
        policy_version: 3,
        approval: { timeout_s: 60, on_timeout: 'deny' },
      });
    });
  }

  test('a shadow version is evaluated on the same call beside the real one, which it never changes', () => {
    const shadow = {
      version: 4,
      body: policyBody({
        rules: [{ id: 'all-ask', match: {}, verdict: 'require_approval' }],
        autonomous_fallback: 'deny',
      }),
    };
    const read = policyVerdict(policy, 'supervised', called(frozen()), { path: 'a' }, shadow);
    assert.equal(read.outcome === 'verdict' && read.verdict, 'allow');
    assert.deepEqual(read.outcome === 'verdict' && read.shadow, {
      version: 4,
      verdict: 'require_approval',
      rule_id: 'all-ask',
      agrees: false,
    });
    const make = policyVerdict(policy, 'autonomous', called(bash), { command: 'make' }, shadow);
    // Autonomy applies to both: each version's require_approval becomes its own fallback.
    assert.deepEqual(make.outcome === 'verdict' && make.shadow, {
      version: 4,
      verdict: 'deny',
      rule_id: 'all-ask',
      agrees: false,
    });
  });

  test("the policy sees the frozen tool's class and effect, not anything the caller says", () => {
    const body = policyBody({
      rules: [
        { id: 'brokered-writes', match: { class: 'brokered', effect: 'write' }, verdict: 'deny' },
      ],
      default: 'allow',
    });
    const outcome = policyVerdict(
      { id: 'p', version: 1, body },
      'supervised',
      called(brokered({ effect: 'write' })),
      { effect: 'read', class: 'sandbox' },
    );
    assert.equal(outcome.outcome === 'verdict' && outcome.rule_id, 'brokered-writes');
  });
});
