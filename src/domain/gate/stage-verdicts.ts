/**
 * The gate's rules, one pure function per stage, in the design document's order. Each takes
 * what its stage's activity loaded and answers; the activities only load and call them.
 */
import { firstExhausted, levelLabel, type SpendLevel } from '../budget/spend-levels.js';
import { matchedConditions } from '../policy/explain.js';
import type { PolicyBody, PolicyInput } from '../policy/policy.js';
import { evaluatePolicy } from '../policy/policy.js';
import { validateArguments } from '../tools/argument-validation.js';
import type { FrozenTool } from '../tools/tools.js';
import { applyAutonomy } from './autonomy.js';
import { reportedDriftVerdict } from './reported-drift.js';
import type {
  Denial,
  DenySource,
  PolicyOutcome,
  ShadowVerdict,
  StageOutcome,
} from './vocabulary.js';

/** The tool a call names, and the run's frozen entry for it when the run froze one. */
export interface CalledTool {
  name: string;
  frozen: FrozenTool | undefined;
}

/** A connection's state as the capability stage reads it, fresh for every call. */
export interface ConnectionState {
  status: 'awaiting_authorization' | 'active' | 'needs_reauthorization' | 'revoked';
  auth_generation: number;
  tools: readonly { name: string; digest: string }[];
}

const pass: StageOutcome = { outcome: 'pass' };

const deny = (source: DenySource, reason: string, extra: Partial<Denial> = {}): Denial => ({
  outcome: 'deny',
  source,
  reason,
  ...extra,
});

/** A tool the run did not freeze is a capability deny, whichever stage notices it. */
export function notFrozen(name: string): Denial {
  return deny('capability', `tool "${name}" is not in the run's frozen tool set`, {
    ledger_reason: "the tool is not in the run's frozen tool set",
    tool_unfrozen: true,
  });
}

/** Why a connection binds no call, in words its owner can act on. */
function unboundState(connection: ConnectionState | undefined): string {
  switch (connection?.status) {
    case undefined:
      return 'is gone';
    case 'needs_reauthorization':
      return "needs its owner to reconnect it: the server refused to renew its authorization (the owner reconnects it on the gate's connections page)";
    case 'awaiting_authorization':
      return 'is not authorized yet';
    default:
      return 'is revoked';
  }
}

/**
 * Stage 1: a run whose allowance is spent stops here, and so does a run with a level above it
 * (its person, a team, its workspace, or a cap of its own in money) spent. Held tokens and money
 * count as spent: they are booked for model requests still in flight.
 */
export function budgetVerdict(
  budget: { max_tokens: number; held_tokens: number; used_tokens: number },
  levels: SpendLevel[] = [],
): StageOutcome {
  const { max_tokens, held_tokens, used_tokens } = budget;
  if (used_tokens + held_tokens >= max_tokens) {
    return deny(
      'budget',
      `the run's token budget is spent: ${used_tokens} used and ${held_tokens} held of ${max_tokens}`,
    );
  }
  // A level that cannot take the smallest booking (one token, one nano-dollar) is spent.
  const spent = firstExhausted(levels, { nanos: 1, tokens: 1 });
  if (!spent) return pass;
  return deny('budget', `budget: ${levelLabel(spent)} is spent`);
}

/**
 * Stage 2: the tool must be in the set the run froze, and a brokered tool's connection must
 * still offer exactly what was frozen (the rug-pull defence) under the same authorisation.
 * `connection` is the bound connection as read now; undefined when it is gone. `observed` is the
 * digest a runner reports its sandbox serves (null: no longer listed), when it reports one.
 */
export function capabilityVerdict(
  called: CalledTool,
  connection: ConnectionState | undefined,
  observed?: string | null,
): StageOutcome {
  const tool = called.frozen;
  if (!tool) return notFrozen(called.name);
  const reported = reportedDriftVerdict(tool, observed);
  if (reported.outcome === 'deny') return reported;
  if (tool.class !== 'brokered') return pass;
  if (!tool.binding) return deny('binding', `"${tool.name}" has no binding to a connection`);
  if (connection?.status !== 'active') {
    return deny('binding', `the connection behind "${tool.name}" ${unboundState(connection)}`);
  }
  const current = connection.tools.find((t) => t.name === tool.name);
  if (!current) {
    return deny('capability', `"${tool.name}" was withdrawn by its server since the run froze it`);
  }
  if (current.digest !== tool.digest) {
    return deny(
      'capability',
      `"${tool.name}" drifted since the run froze it: its server changed it`,
    );
  }
  if (connection.auth_generation !== tool.binding.auth_generation) {
    return deny(
      'binding',
      `the connection behind "${tool.name}" was reauthorized since the run froze it (stale binding)`,
    );
  }
  return pass;
}

/**
 * Stage 3: the arguments against the schema frozen at run creation. A denial is rendered to the
 * model as a failed tool execution, naming the failing paths, so it can correct itself.
 */
export function schemaVerdict(called: CalledTool, args: unknown): StageOutcome {
  const tool = called.frozen;
  if (!tool) return notFrozen(called.name);
  const render = 'tool_error';
  if (!tool.callable) {
    const why = tool.uncallable_reason ?? 'unknown reason';
    return deny('schema', `"${tool.name}" is uncallable: its schema failed the guard (${why})`, {
      render,
    });
  }
  // The tool's digest covers its schema, so it keys the compiled-validator cache.
  const result = validateArguments(tool.input_schema, tool.digest, args);
  if (result.valid) return pass;
  if (result.kind === 'schema') {
    return deny('schema', `"${tool.name}" is uncallable: ${result.message}`, { render });
  }
  const failing = result.errors.length;
  return deny(
    'schema',
    `the arguments do not match the schema of "${tool.name}": ${result.message}`,
    {
      render,
      // The failing paths name argument keys, which are the caller's payload: the ledger gets a count.
      ledger_reason: `the arguments do not match the schema of "${tool.name}" (${failing} failing path${failing === 1 ? '' : 's'})`,
    },
  );
}

/**
 * Stage 4: a read_only run may read, never write nor use a sealed credential. Enforced above
 * policy and approval: nothing after this stage can lift it.
 */
export function trustTierVerdict(tier: 'trusted' | 'read_only', called: CalledTool): StageOutcome {
  const tool = called.frozen;
  if (!tool) return notFrozen(called.name);
  if (tier !== 'read_only') return pass;
  if (tool.binding) {
    return deny('trust_tier', `the run is read_only: "${tool.name}" uses a sealed credential`);
  }
  if (tool.effect === 'write') {
    return deny('trust_tier', `the run is read_only: "${tool.name}" may write`);
  }
  return pass;
}

/** A policy version as the policy stage reads it. */
interface PolicyVersionBody {
  id: string;
  version: number;
  body: PolicyBody;
}

/** The shadow version's effective verdict on the same call, compared with the real one. */
function shadowVerdict(
  shadow: Pick<PolicyVersionBody, 'version' | 'body'>,
  autonomy: 'supervised' | 'autonomous',
  input: PolicyInput,
  real: string,
): ShadowVerdict {
  const verdict = applyAutonomy(
    evaluatePolicy(shadow.body, input),
    autonomy,
    shadow.body.autonomous_fallback,
  );
  return {
    version: shadow.version,
    verdict: verdict.verdict,
    rule_id: verdict.rule_id,
    agrees: verdict.verdict === real,
  };
}

/**
 * Stage 5: the run's frozen policy version (never the policy's current content) on the frozen
 * tool's facts and the arguments; autonomy then rewrites require_approval to the fallback. A
 * shadow version, when the policy names one, is evaluated on the same call for the record only.
 */
export function policyVerdict(
  policy: PolicyVersionBody,
  autonomy: 'supervised' | 'autonomous',
  called: CalledTool,
  args: unknown,
  shadow?: Pick<PolicyVersionBody, 'version' | 'body'>,
): PolicyOutcome {
  const tool = called.frozen;
  if (!tool) return notFrozen(called.name);
  const input = { tool: tool.name, class: tool.class, effect: tool.effect, arguments: args };
  const verdict = evaluatePolicy(policy.body, input);
  const effective = applyAutonomy(verdict, autonomy, policy.body.autonomous_fallback);
  const rule = policy.body.rules.find((r) => r.id === verdict.rule_id);
  return {
    outcome: 'verdict',
    ...effective,
    policy_id: policy.id,
    policy_version: policy.version,
    approval: policy.body.approval,
    ...(rule && { matched: matchedConditions(rule, input) }),
    ...(shadow && { shadow: shadowVerdict(shadow, autonomy, input, effective.verdict) }),
  };
}
