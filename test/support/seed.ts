import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { ApiCaller } from './api.js';

export const builtinTools = [
  {
    name: 'Read',
    effect: 'read',
    input_schema: {
      type: 'object',
      properties: { file_path: { type: 'string' } },
      required: ['file_path'],
    },
  },
  {
    name: 'Grep',
    effect: 'read',
    input_schema: { type: 'object', properties: { pattern: { type: 'string' } } },
  },
  {
    name: 'Bash',
    effect: 'write',
    input_schema: { type: 'object', properties: { command: { type: 'string' } } },
  },
] as const;

export const defaultPolicy = {
  name: 'default',
  rules: [
    { id: 'reads', match: { effect: 'read' }, verdict: 'allow' },
    {
      id: 'no-rm',
      match: { tool: 'Bash', args: [{ path: '/command', op: 'command', value: [['rm', '**']] }] },
      verdict: 'deny',
    },
    { id: 'bash-ok', match: { tool: 'Bash' }, verdict: 'allow' },
  ],
  default: 'deny',
  autonomous_fallback: 'deny',
  approval: { timeout_s: 600, on_timeout: 'deny' },
};

/** Reads are allowed; Bash waits for a person. */
export const askForBash = {
  ...defaultPolicy,
  name: 'ask-for-bash',
  rules: [
    { id: 'reads', match: { effect: 'read' }, verdict: 'allow' },
    { id: 'ask', match: { tool: 'Bash' }, verdict: 'require_approval' },
  ],
};

export async function expectStatus<T>(
  answer: Promise<{ status: number; body: T }>,
  status: number,
): Promise<T> {
  const { status: got, body } = await answer;
  assert.equal(got, status, `expected ${status}, got ${got}: ${JSON.stringify(body)}`);
  return body;
}

/**
 * A setup request, sent again after a 503 or 429 as a careful client does: on a loaded machine the
 * pool may turn one away (nothing done), and a test's setup is not what it checks.
 */
function seedCall(api: ApiCaller, ...request: Parameters<ApiCaller['call']>) {
  return untilAnswered(() => api.call(...request));
}

/** A new member of a workspace, with their user token. */
export async function addMember(api: ApiCaller, workspace: string, name: string, role: string) {
  const created = await expectStatus(
    seedCall(api, 'POST', `/v1/workspaces/${workspace}/members`, {
      token: api.operatorKey,
      body: { name, role },
    }),
    201,
  );
  return { user_id: created.user_id as string, token: created.user_token as string };
}

/** A workspace with an admin, a bundle of built-in tools and a policy. */
export async function seedWorkspace(
  api: ApiCaller,
  policy: Record<string, unknown> = defaultPolicy,
) {
  const op = { token: api.operatorKey };
  const workspace = (
    await expectStatus(
      seedCall(api, 'POST', '/v1/workspaces', { ...op, body: { name: 'acme' } }),
      201,
    )
  ).id as string;
  const admin = await expectStatus(
    seedCall(api, 'POST', `/v1/workspaces/${workspace}/members`, {
      ...op,
      body: { name: 'ana', role: 'admin' },
    }),
    201,
  );
  const bundle = await expectStatus(
    seedCall(api, 'POST', '/v1/capability-bundles', {
      ...op,
      body: { workspace, name: 'builtins', version: '1', tools: builtinTools },
    }),
    201,
  );
  const created = await expectStatus(
    seedCall(api, 'POST', '/v1/policies', { ...op, body: { workspace, ...policy } }),
    201,
  );
  return {
    workspace,
    admin: { user_id: admin.user_id as string, token: admin.user_token as string },
    bundleId: bundle.id as string,
    policyId: created.id as string,
  };
}

export type Seed = Awaited<ReturnType<typeof seedWorkspace>>;

/** The body of `POST /v1/runs` for a supervised manual run of the seeded workspace. */
export function runRequest(seed: Seed, overrides: Record<string, unknown> = {}) {
  return {
    workspace: seed.workspace,
    session_id: `s-${randomUUID()}`,
    invoked_by: seed.admin.user_id,
    source: { kind: 'manual' },
    autonomy: 'supervised',
    policy_id: seed.policyId,
    tools: { bundles: [seed.bundleId] },
    budget: { max_tokens: 100_000 },
    ...overrides,
  };
}

export async function createRun(
  api: ApiCaller,
  seed: Seed,
  overrides: Record<string, unknown> = {},
) {
  return expectStatus<CreatedRun>(
    seedCall(api, 'POST', '/v1/runs', {
      token: api.operatorKey,
      body: runRequest(seed, overrides),
    }),
    201,
  );
}

export interface CreatedRun {
  run_id: string;
  session_id: string;
  session_token: string;
  trust_tier: string;
  policy_version: number;
  toolset_digest: string;
  tools: { name: string; [key: string]: unknown }[];
}

export function toolCall(
  api: ApiCaller,
  run: { session_id: string; session_token: string },
  toolCallId: string,
  body: Record<string, unknown>,
) {
  return api.call('PUT', `/v1/sessions/${run.session_id}/tool-calls/${toolCallId}`, {
    token: run.session_token,
    body,
  });
}

/**
 * A tool call sent again under its id while the gate answers 503 (still evaluating it past the
 * API's wait, or Temporal or PostgreSQL busy beside another suite), as a runner does, for up to a
 * minute; any other answer, a 429 included, as it came.
 */
export function toolCallUntilAnswered(
  api: ApiCaller,
  run: { session_id: string; session_token: string },
  toolCallId: string,
  body: Record<string, unknown>,
) {
  return untilAnswered(() => toolCall(api, run, toolCallId, body), 60_000, [503]);
}

/**
 * Sends a request again while it answers 503 or 429, as a runner does: the gate or PostgreSQL was
 * busy, or the credential's writes in flight were at their cap, and the same request re-attaches
 * to what the first one started. At most a minute.
 */
export async function untilAnswered<T extends { status: number }>(
  send: () => Promise<T>,
  windowMs = 60_000,
  sentAgainOn: readonly number[] = [503, 429],
): Promise<T> {
  const deadline = Date.now() + windowMs;
  for (;;) {
    const answer = await send();
    if (!sentAgainOn.includes(answer.status) || Date.now() > deadline) return answer;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}
