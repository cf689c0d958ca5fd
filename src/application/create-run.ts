import type { SessionId } from '../domain/gate/ids.js';
import { trustTierOf, type RunSource } from '../domain/gate/trust-tier.js';
import { toolSetDigest } from '../domain/tools/tools.js';
import { findMember } from '../store/members.js';
import { findModelProvider } from '../store/model-providers.js';
import { findPolicyVersion } from '../store/policies.js';
import type { Pool } from '../store/pool.js';
import { createRun as createRunRecord, type FrozenRun } from '../store/runs.js';
import { ConflictError, InvalidInputError, NotFoundError } from '../domain/errors.js';
import { freezeRunTools, type ToolsRequest } from './freeze-run-tools.js';
import { hashToken, newToken } from './tokens.js';

interface RunRequest {
  workspace: string;
  session_id: SessionId;
  invoked_by: string;
  source: RunSource;
  autonomy: 'supervised' | 'autonomous';
  policy_id: string;
  tools: ToolsRequest;
  budget: { max_tokens: number };
  /** The model provider the run reaches its model through, frozen with it. */
  model_provider?: string | undefined;
  /** `read_only` whatever the source says (a run profile's choice); never lifts the tier. */
  read_only?: boolean | undefined;
}

/**
 * Creates a run and freezes what it may do: the tool set and its digest, each schema (guarded),
 * the policy's current version, the trust tier, the autonomy mode and the budget. Returns the
 * run and its session token, which is shown once and stored only as a hash.
 */
export async function createRun(
  pool: Pool,
  request: RunRequest,
): Promise<{ run: FrozenRun; sessionToken: string }> {
  const invoker = await findMember(pool, request.workspace, request.invoked_by);
  if (invoker?.status !== 'active') {
    throw new InvalidInputError('invoked_by must be an active member of the workspace', [
      { path: 'invoked_by', message: 'not an active member of this workspace' },
    ]);
  }
  const policy = await findPolicyVersion(pool, request.policy_id);
  if (policy?.workspace_id !== request.workspace) {
    throw new NotFoundError(`policy ${request.policy_id} in this workspace`);
  }
  if (request.model_provider !== undefined) {
    const provider = await findModelProvider(pool, request.model_provider);
    if (provider?.workspace_id !== request.workspace) {
      throw new NotFoundError(`model provider ${request.model_provider} in this workspace`);
    }
    if (provider.removed_at) {
      throw new ConflictError(`model provider ${request.model_provider} was removed`);
    }
  }
  const toolset = await freezeRunTools(pool, request.workspace, request.invoked_by, request.tools);
  const sessionToken = newToken('session');
  const run = await createRunRecord(pool, {
    workspace_id: request.workspace,
    session_id: request.session_id,
    session_token_hash: hashToken(sessionToken),
    invoked_by: request.invoked_by,
    source: request.source,
    trust_tier: request.read_only ? 'read_only' : trustTierOf(request.source),
    autonomy: request.autonomy,
    policy_id: policy.policy_id,
    policy_version: policy.version,
    toolset,
    toolset_digest: toolSetDigest(toolset),
    max_tokens: request.budget.max_tokens,
    model_provider_id: request.model_provider ?? null,
  });
  if (!run) throw new ConflictError(`session ${request.session_id} already has a run`);
  return { run, sessionToken };
}
