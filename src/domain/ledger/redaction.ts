import { digestOf } from './digest.js';

/**
 * What each ledger event may say. Fields typed `Payload` are never stored: the redactor keeps
 * only their digest (`<field>_digest`). Everything else must be a scalar and is allow-listed
 * here; anything not listed is dropped.
 */
type Payload = { readonly payload: unknown };
/** Free text others wrote (a name the run never froze, an approver's reason): digest and length. */
type ForeignText = { readonly foreign: string };
type Scalar = string | number | boolean | null;

/**
 * How the policy stage reached its verdict (present when it was reached): the frozen version,
 * the matched rule's conditions in the policy's words, and a shadow version's verdict.
 */
export interface PolicyTrailFacts {
  policy_version?: number;
  matched?: string;
  shadow_version?: number;
  shadow_verdict?: string;
  shadow_rule_id?: string | null;
  shadow_agrees?: boolean;
}
const policyTrailFields = [
  'policy_version',
  'matched',
  'shadow_version',
  'shadow_verdict',
  'shadow_rule_id',
  'shadow_agrees',
] as const;

interface EventFacts {
  'run.created': {
    run_id: string;
    workspace: string;
    invoked_by: string;
    source_kind: string;
    trust_tier: string;
    autonomy: string;
    policy_id: string;
    policy_version: number;
    toolset_digest: string;
    max_tokens: number;
    model_provider: string | null;
  };
  /** The run's session token stops working; its pending approvals are denied after it. */
  'run.revoked': {
    run_id: string;
    /** The invoker who revoked it; null for the operator. */
    revoked_by: string | null;
  };
  'tool.requested': {
    tool_call_id: string;
    tool: string | ForeignText;
    execute: boolean;
    arguments: Payload;
  };
  'tool.decision': {
    tool_call_id: string;
    tool: string | ForeignText;
    decision: 'allow' | 'deny';
    stage: string;
    source: string | null;
    reason: string;
    rule_id: string | null;
    verdict: string | null;
    original_verdict: string | null;
    decided_by: string | null;
  } & PolicyTrailFacts;
  'tool.brokered': {
    tool_call_id: string;
    tool: string;
    /**
     * `executed`: the server answered (its result may itself be an error); `failed`: the control
     * plane could not carry the call out; `denied`: refused at the call (capability, binding).
     */
    outcome: 'executed' | 'failed' | 'denied';
    /** For `denied`: the deny's source and the gate's reason. */
    source: string | null;
    reason: string | null;
    /** Null when no attempt's timing is known (every broker attempt failed). */
    latency_ms: number | null;
    is_error: boolean;
    result: Payload;
  };
  'approval.requested': {
    tool_call_id: string;
    tool: string;
    rule_id: string | null;
    expires_at: string;
  } & PolicyTrailFacts;
  'approval.decided': {
    tool_call_id: string;
    outcome: 'approved' | 'denied' | 'expired' | 'failed_closed';
    decision: 'allow' | 'deny';
    decided_by: string | null;
    reason: ForeignText | null;
  };
  /** A standing approval for the rest of a run (or until `expires_at`); its scope as a digest. */
  'grant.created': {
    grant_id: string;
    run_id: string;
    tool_call_id: string;
    tool: string;
    scope: Payload;
    granted_by: string;
    expires_at: string | null;
  };
  'grant.revoked': {
    grant_id: string;
    /** The member who revoked it; null when it ended with its grantor's access. */
    revoked_by: string | null;
    because?: 'grantor_access_ended';
  };
  'model.reserved': {
    request_id: string;
    model: string;
    max_output_tokens: number;
    input_bound_tokens: number;
    booked_tokens: number;
    /** The worst-case cost booked, in nano-dollars (absent before prices). */
    booked_nanos?: number;
    /** `proxy`: the gate forwards the request and meters it; `runner`: the runner reports usage. */
    via?: 'proxy' | 'runner';
  };
  'model.reconciled': {
    request_id: string;
    input_tokens: number;
    output_tokens: number;
    used_tokens: number;
    released_tokens: number;
    /** What an earlier expiry charged at the booking, which this real usage replaces. */
    replaced_charge_tokens?: number;
    /** The exchange's cost in nano-dollars: the booked price applied to the usage counted. */
    cost_nanos?: number;
    replaced_charge_nanos?: number;
    via?: 'proxy' | 'runner';
    /** Proxied requests: how the upstream exchange ended, how long it took, its request id. */
    outcome?: string;
    upstream_status?: number | null;
    upstream_request_id?: string | null;
    latency_ms?: number;
    cache_creation_input_tokens?: number;
    cache_read_input_tokens?: number;
  };
  /** A hold nobody settled in time: released by the sweep and charged at its booking. */
  'model.expired': {
    request_id: string;
    released_tokens: number;
    charged_tokens?: number;
    charged_nanos?: number;
  };
}

type EventType = keyof EventFacts;

/** The policy trail's ledger fields, from what the policy stage answered. */
export function policyTrailFacts(trail: {
  policy_version?: number;
  matched?: string;
  shadow?: { version: number; verdict: string; rule_id: string | null; agrees: boolean };
}): PolicyTrailFacts {
  return {
    ...(trail.policy_version !== undefined && { policy_version: trail.policy_version }),
    ...(trail.matched !== undefined && { matched: trail.matched }),
    ...(trail.shadow && {
      shadow_version: trail.shadow.version,
      shadow_verdict: trail.shadow.verdict,
      shadow_rule_id: trail.shadow.rule_id,
      shadow_agrees: trail.shadow.agrees,
    }),
  };
}

/** One idempotency key per fact: a retried append finds the first one and adds nothing. */
const idempotencyKeys: { [T in EventType]: (facts: EventFacts[T]) => string } = {
  'run.created': () => 'run.created',
  'run.revoked': () => 'run.revoked',
  'tool.requested': (f) => `tool.requested:${f.tool_call_id}`,
  'tool.decision': (f) => `tool.decision:${f.tool_call_id}`,
  'tool.brokered': (f) => `tool.brokered:${f.tool_call_id}`,
  'approval.requested': (f) => `approval.requested:${f.tool_call_id}`,
  'approval.decided': (f) => `approval.decided:${f.tool_call_id}`,
  'grant.created': (f) => `grant.created:${f.grant_id}`,
  'grant.revoked': (f) => `grant.revoked:${f.grant_id}`,
  'model.reserved': (f) => `model.reserved:${f.request_id}`,
  'model.reconciled': (f) => `model.reconciled:${f.request_id}`,
  'model.expired': (f) => `model.expired:${f.request_id}`,
};

/** The allow-list itself, at run time: a field not named here never reaches the ledger. */
const allowedFields: { [T in EventType]: readonly (keyof EventFacts[T])[] } = {
  'run.created': [
    'run_id',
    'workspace',
    'invoked_by',
    'source_kind',
    'trust_tier',
    'autonomy',
    'policy_id',
    'policy_version',
    'toolset_digest',
    'max_tokens',
    'model_provider',
  ],
  'run.revoked': ['run_id', 'revoked_by'],
  'tool.requested': ['tool_call_id', 'tool', 'execute', 'arguments'],
  'tool.decision': [
    'tool_call_id',
    'tool',
    'decision',
    'stage',
    'source',
    'reason',
    'rule_id',
    'verdict',
    'original_verdict',
    'decided_by',
    ...policyTrailFields,
  ],
  'tool.brokered': [
    'tool_call_id',
    'tool',
    'outcome',
    'source',
    'reason',
    'latency_ms',
    'is_error',
    'result',
  ],
  'approval.requested': ['tool_call_id', 'tool', 'rule_id', 'expires_at', ...policyTrailFields],
  'approval.decided': ['tool_call_id', 'outcome', 'decision', 'decided_by', 'reason'],
  'grant.created': [
    'grant_id',
    'run_id',
    'tool_call_id',
    'tool',
    'scope',
    'granted_by',
    'expires_at',
  ],
  'grant.revoked': ['grant_id', 'revoked_by', 'because'],
  'model.reserved': [
    'request_id',
    'model',
    'max_output_tokens',
    'input_bound_tokens',
    'booked_tokens',
    'booked_nanos',
    'via',
  ],
  'model.reconciled': [
    'request_id',
    'input_tokens',
    'output_tokens',
    'used_tokens',
    'released_tokens',
    'replaced_charge_tokens',
    'cost_nanos',
    'replaced_charge_nanos',
    'via',
    'outcome',
    'upstream_status',
    'upstream_request_id',
    'latency_ms',
    'cache_creation_input_tokens',
    'cache_read_input_tokens',
  ],
  'model.expired': ['request_id', 'released_tokens', 'charged_tokens', 'charged_nanos'],
};

/** Marks a value the redactor must replace by its digest. */
export function payload(value: unknown): Payload {
  return { payload: value };
}

const maxTextLength = 1_000;
const redactorOnly = Symbol('redactor');

/**
 * An event that went through the redactor. The private field makes the type nominal (an object
 * literal or an `as` cast cannot satisfy it) and the constructor refuses callers without the
 * module-private symbol, so the redactor below is the only way to make one.
 */
export class Redacted {
  readonly #sealed = true;
  readonly type: EventType;
  readonly data: Readonly<Record<string, Scalar>>;
  readonly idempotencyKey: string;

  constructor(key: symbol, type: EventType, data: Record<string, Scalar>, idempotencyKey: string) {
    if (key !== redactorOnly) throw new TypeError('only the redactor makes Redacted envelopes');
    this.type = type;
    this.data = Object.freeze(data);
    this.idempotencyKey = idempotencyKey;
  }

  static isRedacted(value: unknown): value is Redacted {
    return value instanceof Redacted && value.#sealed;
  }
}

/** Marks free text written by others: the ledger keeps `<field>_digest` and `<field>_length`. */
export function foreign(text: string): ForeignText {
  return { foreign: text };
}

function isForeign(value: unknown): value is ForeignText {
  return (
    typeof value === 'object' &&
    value !== null &&
    Object.keys(value).length === 1 &&
    'foreign' in value &&
    typeof value.foreign === 'string'
  );
}

function isPayload(value: unknown): value is Payload {
  return (
    typeof value === 'object' &&
    value !== null &&
    Object.keys(value).length === 1 &&
    'payload' in value
  );
}

function scalar(field: string, value: unknown): Scalar {
  if (value === null || typeof value === 'boolean') return value;
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new TypeError(`${field} must be a finite number`);
    return value;
  }
  if (typeof value === 'string') {
    // jsonb cannot hold NUL; long text is cut, never a payload in disguise.
    const text = value.replaceAll('\u0000', '');
    return text.length > maxTextLength ? `${text.slice(0, maxTextLength)}…` : text;
  }
  throw new TypeError(
    `${field} is not a scalar; wrap payloads with payload() so they are digested`,
  );
}

/** The redactor: keeps the allow-listed scalars of an event's facts and digests its payloads. */
export function redact<T extends EventType>(type: T, facts: EventFacts[T]): Redacted {
  const data: Record<string, Scalar> = {};
  for (const field of allowedFields[type] as readonly string[]) {
    const value: unknown = (facts as Record<string, unknown>)[field];
    if (value === undefined) continue;
    if (isPayload(value)) data[`${field}_digest`] = digestOf(value.payload ?? null);
    else if (isForeign(value)) {
      data[`${field}_digest`] = digestOf(value.foreign);
      data[`${field}_length`] = value.foreign.length;
    } else data[field] = scalar(field, value);
  }
  return new Redacted(redactorOnly, type, data, idempotencyKeys[type](facts));
}
