/**
 * `npm run seed`: a workspace to try the gate with, through the API of a running stack
 * (GATE_PUBLIC_URL, default the dev stack's; GATE_OPERATOR_KEY). Creates a workspace, an admin and
 * an approver with user tokens (for automation), the roles the development identity provider's
 * groups give (its people sign in with them), a bundle of the agent SDK's built-in tools (every
 * one it offers, with the schemas it sends), a policy (reads allowed, everything else asks a
 * person) and one run, and prints their ids and one-time tokens as JSON.
 */
import { randomUUID } from 'node:crypto';
import { agentBuiltInTools } from '../src/domain/tools/agent-built-in-tools.js';
import { configOrExit } from '../src/config.js';
import { devGroupRoles, devPeople } from './devstack/dev-people.js';
import { withDevStackDefaults } from './devstack/stack-environment.js';

export class SeedError extends Error {
  override name = 'SeedError';
}

function operatorCalls(apiUrl: string, operatorKey: string) {
  return async (path: string, body: unknown, method = 'POST') => {
    const response = await fetch(`${apiUrl}${path}`, {
      method,
      headers: { authorization: `Bearer ${operatorKey}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    const answer = (await response.json()) as Record<string, unknown>;
    if (!response.ok)
      throw new SeedError(`${method} ${path}: ${response.status} ${String(answer.detail)}`);
    return answer;
  };
}

export interface DemoWorkspace {
  workspace: string;
  admin: { user_id: string; user_token: string };
  approver: { user_id: string; user_token: string };
  bundle: string;
  policy: string;
}

/** One more run in the demo workspace, invoked by its admin. */
export async function createDemoRun(
  apiUrl: string,
  operatorKey: string,
  demo: DemoWorkspace,
  overrides: Record<string, unknown> = {},
) {
  const run = await operatorCalls(apiUrl, operatorKey)('/v1/runs', {
    workspace: demo.workspace,
    session_id: `demo-${randomUUID()}`,
    invoked_by: demo.admin.user_id,
    source: { kind: 'manual' },
    autonomy: 'supervised',
    policy_id: demo.policy,
    tools: { bundles: [demo.bundle] },
    budget: { max_tokens: 1_000_000 },
    ...overrides,
  });
  return {
    run_id: run.run_id as string,
    session_id: run.session_id as string,
    session_token: run.session_token as string,
  };
}

export async function seed(apiUrl: string, operatorKey: string) {
  const call = operatorCalls(apiUrl, operatorKey);
  const workspace = (await call('/v1/workspaces', { name: 'demo' })).id as string;
  const member = async (name: string, role: string) => {
    const created = await call(`/v1/workspaces/${workspace}/members`, { name, role });
    return { user_id: created.user_id as string, user_token: created.user_token as string };
  };
  const admin = await member('admin', 'admin');
  const approver = await member('approver', 'approver');
  // People of the development identity provider get their roles from their groups at sign-in.
  await call(`/v1/workspaces/${workspace}/identity`, { roles: devGroupRoles }, 'PUT');
  const bundle = await call('/v1/capability-bundles', {
    workspace,
    name: 'builtins',
    version: '1',
    tools: agentBuiltInTools,
  });
  const policy = await call('/v1/policies', {
    workspace,
    name: 'default',
    rules: [{ id: 'reads', match: { effect: 'read' }, verdict: 'allow' }],
    default: 'require_approval',
    autonomous_fallback: 'deny',
    approval: { timeout_s: 3600, on_timeout: 'deny' },
  });
  const demo: DemoWorkspace = {
    workspace,
    admin,
    approver,
    bundle: bundle.id as string,
    policy: policy.id as string,
  };
  const people = devPeople.map(({ name, groups }) => ({ name, groups }));
  return {
    ...demo,
    sign_in: { url: `${apiUrl}/login`, people },
    run: await createDemoRun(apiUrl, operatorKey, demo),
  };
}

if (process.argv[1]?.endsWith('seed.ts')) {
  const config = configOrExit(withDevStackDefaults());
  const { operatorKey, publicUrl } = config.api;
  if (!operatorKey) {
    process.stderr.write('set GATE_OPERATOR_KEY to the key `npm run dev` printed\n');
    process.exit(2);
  }
  try {
    process.stdout.write(`${JSON.stringify(await seed(publicUrl, operatorKey), null, 2)}\n`);
  } catch (err) {
    process.stderr.write(`${(err as Error).message}\n`);
    process.exit(1);
  }
}
