import { PhotographError, callToolHttp } from '../broker/photograph.js';
import type { CredentialSealer } from '../broker/sealing.js';
import { checkBrokerBinding } from '../domain/gate/broker-binding.js';
import type { DecidedAnswer, GateRequest } from '../domain/gate/vocabulary.js';
import { payload, redact } from '../domain/ledger/redaction.js';
import type { FrozenTool } from '../domain/tools/tools.js';
import { claimBrokeredCall, finishBrokeredCall } from '../store/brokered-calls.js';
import { findConnection } from '../store/connections.js';
import { appendEvent } from '../store/ledger.js';
import { findMember } from '../store/members.js';
import { withTransaction, type Pool } from '../store/pool.js';
import { recordBrokeredResult } from '../store/tool-calls.js';
import type { FrozenRuns } from './frozen-runs.js';

const toolError = (text: string) => ({ isError: true, content: [{ type: 'text', text }] });

/**
 * Carries out an allowed brokered call for the sandbox: the credential never leaves the control
 * plane. Before it is unsealed the binding is verified again (status, authorisation generation,
 * the owner's membership for a personal connection); any doubt is a tool error, never a call.
 */
export function brokerActivity(pool: Pool, frozen: FrozenRuns, sealer: CredentialSealer) {
  async function execute(tool: FrozenTool, request: GateRequest, workspaceId: string) {
    const binding = tool.binding;
    const connection = binding ? await findConnection(pool, binding.connection_id) : undefined;
    const owner = connection?.owner_user_id
      ? await findMember(pool, workspaceId, connection.owner_user_id)
      : undefined;
    const check = checkBrokerBinding(binding, connection, owner);
    if (!check.holds) return toolError(check.reason);
    const bound = check.connection;
    try {
      const credential = sealer.unseal(bound.id, sealer.fromStored(bound.sealed_credential));
      return await callToolHttp(bound.url, credential, {
        name: tool.mcp_name ?? tool.name,
        arguments: request.arguments,
      });
    } catch (err) {
      if (err instanceof PhotographError)
        return toolError(`the upstream call failed (${err.code}): ${err.message}`);
      throw err;
    }
  }

  return async function broker(
    request: GateRequest,
    answer: DecidedAnswer,
  ): Promise<DecidedAnswer> {
    const { run, called } = await frozen.call(request);
    const tool = called.frozen;
    if (answer.decision !== 'allow' || !request.execute || tool?.class !== 'brokered')
      return answer;

    const claim = await claimBrokeredCall(pool, request.session_id, request.tool_call_id);
    if (claim.state === 'finished') return { ...answer, result: claim.result };
    const started = Date.now();
    const result: Record<string, unknown> =
      claim.state === 'unknown'
        ? toolError('an earlier attempt to execute this call did not finish; it is not repeated')
        : await execute(tool, request, run.workspace_id);
    const latencyMs = Date.now() - started;
    await withTransaction(pool, async (tx) => {
      await finishBrokeredCall(tx, request.session_id, request.tool_call_id, result);
      await recordBrokeredResult(tx, request.session_id, request.tool_call_id, result);
      await appendEvent(
        tx,
        request.session_id,
        redact('tool.brokered', {
          tool_call_id: request.tool_call_id,
          tool: request.tool,
          latency_ms: latencyMs,
          is_error: result.isError === true,
          result: payload(result),
        }),
      );
    });
    return { ...answer, result };
  };
}
