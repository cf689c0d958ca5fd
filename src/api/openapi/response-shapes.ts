/**
 * The shapes of the answers a generated client reads most, for the OpenAPI document. The
 * answers are built by the routes; these describe them (extra fields may come).
 */
import { z } from 'zod';
import { denySources } from '../../domain/gate/vocabulary.js';

const object = z.looseObject({});
const connectionStatuses = [
  'awaiting_authorization',
  'active',
  'needs_reauthorization',
  'revoked',
] as const;

export const responses = {
  object,
  problem: z.looseObject({
    type: z.string(),
    title: z.string(),
    status: z.number().int(),
    detail: z.string(),
    errors: z.array(z.object({ path: z.string(), message: z.string() })).optional(),
  }),
  workspace: z.looseObject({ id: z.uuid(), name: z.string() }),
  member: z.looseObject({
    user_id: z.uuid(),
    user_token: z.string(),
    name: z.string(),
    role: z.enum(['member', 'approver', 'admin']),
    status: z.enum(['active', 'suspended']),
  }),
  workspaceIdentity: z.looseObject({
    groups_claim: z.string(),
    roles: z.record(z.string(), z.enum(['member', 'approver', 'admin'])),
  }),
  bundle: z.looseObject({ id: z.uuid(), tools: z.array(object), digest: z.string() }),
  connection: z.looseObject({
    id: z.uuid(),
    status: z.enum(connectionStatuses),
    credential_type: z.enum(['bearer', 'oauth']),
    auth_generation: z.number().int(),
    tools: z.array(object),
    digest: z.string(),
    /** An OAuth connection's page where the right person authorizes it. */
    authorize_url: z.string().optional(),
  }),
  reauthorization: z.looseObject({
    id: z.uuid(),
    auth_generation: z.number().int(),
    status: z.enum(connectionStatuses).optional(),
    authorize_url: z.string().optional(),
  }),
  disconnection: z.looseObject({
    id: z.uuid(),
    status: z.literal('revoked'),
    revoked_at_server: z.boolean(),
  }),
  policy: z.looseObject({ id: z.uuid(), version: z.number().int() }),
  run: z.looseObject({
    run_id: z.uuid(),
    session_id: z.string(),
    session_token: z.string(),
    trust_tier: z.enum(['trusted', 'read_only']),
    policy_version: z.number().int(),
    toolset_digest: z.string(),
    tools: z.array(object),
  }),
  toolCallAnswer: z.looseObject({
    status: z.enum(['decided', 'pending_approval', 'evaluating']),
    decision: z.enum(['allow', 'deny']).optional(),
    source: z.enum(denySources).optional(),
    reason: z.string().optional(),
    rule_id: z.string().nullable().optional(),
    render: z.literal('tool_error').optional(),
    approval: z.looseObject({ url: z.string(), expires_at: z.string() }).optional(),
    result: object.optional(),
  }),
  explanation: z.looseObject({
    session_id: z.string(),
    tool_call_id: z.string(),
    tool: z.string(),
    status: z.enum(['evaluating', 'pending_approval', 'decided']),
    decision: z.enum(['allow', 'deny']).nullable(),
    request_digest: z.string(),
    stages: z.array(z.looseObject({ stage: z.string(), verdict: z.string(), looked_at: object })),
  }),
  shadow: z.looseObject({ id: z.uuid(), shadow_version: z.number().int().nullable() }),
  simulation: z.looseObject({
    policy_id: z.uuid(),
    evaluated: z.number().int(),
    by_outcome: z.record(z.enum(['allow', 'deny', 'ask']), z.number().int()),
    by_rule: z.record(z.string(), z.number().int()),
    changed: z.array(
      z.looseObject({
        session_id: z.string(),
        tool_call_id: z.string(),
        tool: z.string(),
        recorded: z.looseObject({
          decision: z.enum(['allow', 'deny']),
          source: z.enum(denySources).optional(),
          rule_id: z.string().optional(),
          asked: z.boolean(),
        }),
        candidate: z.looseObject({
          decision: z.enum(['allow', 'deny', 'ask']),
          rule_id: z.string().nullable(),
          reason: z.string(),
        }),
      }),
    ),
    complete: z.boolean(),
    stopped_by: z.enum(['limit', 'deadline']).nullable(),
  }),
  approvalList: z.looseObject({
    status: z.enum(['pending', 'decided']),
    scope: z.enum(['mine', 'all']),
    page: z.number().int(),
    per_page: z.number().int(),
    total: z.number().int(),
    runs: z.array(
      z.looseObject({
        run_id: z.uuid(),
        repository: z.string().nullable(),
        pull_request: z
          .looseObject({ number: z.number().int(), url: z.string().nullable() })
          .nullable(),
        trust_tier: z.enum(['trusted', 'read_only']),
        invoked_by_name: z.string(),
      }),
    ),
    approvals: z.array(object),
  }),
  decision: z.looseObject({ outcome: z.enum(['decided', 'already_decided']) }),
  revocation: z.looseObject({
    run_id: z.uuid(),
    revoked_at: z.string(),
    revoked_by: z.uuid().nullable(),
  }),
  modelProvider: z.looseObject({
    id: z.uuid(),
    workspace: z.uuid(),
    name: z.string(),
    kind: z.literal('anthropic'),
    base_url: z.string(),
    removed_at: z.string().nullable(),
  }),
};
