import { connectionCredential } from '../application/connections.js';
import { oauthAccessToken, ReauthorizationNeededError } from '../application/oauth-connections.js';
import { OAuthFlowError } from '../broker/oauth-client.js';
import { PhotographError, callToolHttp, type ListedTool } from '../broker/photograph.js';
import type { BearerCredential, CredentialSealer } from '../broker/sealing.js';
import { brokerVerdict, liveDefinitionVerdict } from '../domain/gate/broker-verdicts.js';
import type { CalledTool } from '../domain/gate/stage-verdicts.js';
import type { DecidedAnswer, Denial, GateRequest } from '../domain/gate/vocabulary.js';
import { payload, redact } from '../domain/ledger/redaction.js';
import { photographMcpTools } from '../domain/tools/mcp-tools.js';
import {
  claimBrokeredCall,
  finishBrokeredCall,
  settleFailedBrokeredCall,
} from '../store/brokered-calls.js';
import { findConnection, touchConnection, type ConnectionRow } from '../store/connections.js';
import { appendEvent } from '../store/ledger.js';
import { findMember } from '../store/members.js';
import { findRunRevocation } from '../store/run-revocations.js';
import type { FrozenRun } from '../store/runs.js';
import { withTransaction, type Pool, type Queryable } from '../store/pool.js';
import {
  findToolCall,
  recordBrokeredResult,
  recordDenialAtCall,
  stateOf,
} from '../store/tool-calls.js';
import type { FrozenRuns } from './frozen-runs.js';

type Result = Record<string, unknown>;

/** What became of one brokered call: the server's result, a failure to carry it out, or a deny. */
type Brokered =
  { outcome: 'executed' | 'failed'; result: Result } | { outcome: 'denied'; denial: Denial };

const toolError = (text: string): Result => ({ isError: true, content: [{ type: 'text', text }] });

/** The call as the gate recorded it: what a retried activity answers once it is settled. */
async function recordedAnswer(db: Queryable, request: GateRequest): Promise<DecidedAnswer> {
  const row = await findToolCall(db, request.session_id, request.tool_call_id);
  const state = row ? stateOf(row) : undefined;
  if (state?.status !== 'decided') throw new Error('the brokered call is not recorded as decided');
  return state;
}

function deniedAnswer(denial: Denial): DecidedAnswer & { decision: 'deny' } {
  return { status: 'decided', decision: 'deny', source: denial.source, reason: denial.reason };
}

function brokeredEvent(request: GateRequest, brokered: Brokered, latencyMs: number | null) {
  const denial = brokered.outcome === 'denied' ? brokered.denial : undefined;
  const result = brokered.outcome === 'denied' ? null : brokered.result;
  return redact('tool.brokered', {
    tool_call_id: request.tool_call_id,
    tool: request.tool,
    outcome: brokered.outcome,
    source: denial?.source ?? null,
    reason: denial?.reason ?? null,
    latency_ms: latencyMs,
    is_error: result === null || result.isError === true,
    result: payload(result),
  });
}

/**
 * Carries out an allowed brokered call for the sandbox: the credential never leaves the control
 * plane. Right before it is unsealed the capability verdict is given again on the connection as
 * it is now, and right before the call the server's live tools/list must still hold the frozen
 * digest; either refusing turns the allow into a deny at the call, and nothing is executed.
 */
export function brokerActivity(pool: Pool, frozen: FrozenRuns, sealer: CredentialSealer) {
  async function execute(called: CalledTool, request: GateRequest, run: FrozenRun) {
    const binding = called.frozen?.binding;
    const connection = binding ? await findConnection(pool, binding.connection_id) : undefined;
    const owner = connection?.owner_user_id
      ? await findMember(pool, run.workspace_id, connection.owner_user_id)
      : undefined;
    // Read now, not frozen: a run revoked after its call was allowed touches no credential.
    const revoked = (await findRunRevocation(pool, run.id)) !== undefined;
    const verdict = brokerVerdict(called, connection, owner, revoked);
    if (verdict.outcome === 'deny') return { outcome: 'denied', denial: verdict } as const;
    return callUpstream(called, request, verdict.connection);
  }

  async function callUpstream(
    called: CalledTool,
    request: GateRequest,
    connection: ConnectionRow,
  ): Promise<Brokered> {
    const confirm = (listed: ListedTool[]) =>
      liveDefinitionVerdict(called, connection, photographMcpTools(connection.name, listed).tools);
    const tool = { name: called.frozen?.mcp_name ?? called.name, arguments: request.arguments };
    const send = (credential: BearerCredential) =>
      callToolHttp(connection.url, credential, tool, confirm);
    try {
      const credential = await connectionCredential({ pool, sealer }, connection);
      const call = await send(credential).catch(async (err: unknown) => {
        // An OAuth server refusing the token: refresh once, then the call once more.
        if (!(err instanceof PhotographError) || err.code !== 'unauthorized') throw err;
        if (connection.credential_type !== 'oauth') throw err;
        return send(await oauthAccessToken({ pool, sealer }, connection, credential.token));
      });
      if (!call.called) return { outcome: 'denied', denial: call.refusal };
      await touchConnection(pool, connection.id);
      return { outcome: 'executed', result: call.result };
    } catch (err) {
      if (err instanceof ReauthorizationNeededError) {
        const reason = `${err.message} (checked at the call; nothing was executed)`;
        return { outcome: 'denied', denial: { outcome: 'deny', source: 'binding', reason } };
      }
      if (!(err instanceof PhotographError) && !(err instanceof OAuthFlowError)) throw err;
      const code = err instanceof PhotographError ? err.code : 'authorization';
      const text = `the upstream call failed (${code}): ${err.message}`;
      return { outcome: 'failed', result: toolError(text) };
    }
  }

  async function record(request: GateRequest, brokered: Brokered, latencyMs: number) {
    const { session_id: sessionId, tool_call_id: toolCallId } = request;
    return withTransaction(pool, async (tx) => {
      if (brokered.outcome === 'denied') {
        const answer = deniedAnswer(brokered.denial);
        await finishBrokeredCall(tx, sessionId, toolCallId, toolError(answer.reason));
        await recordDenialAtCall(tx, sessionId, toolCallId, answer);
      } else {
        await finishBrokeredCall(tx, sessionId, toolCallId, brokered.result);
        await recordBrokeredResult(tx, sessionId, toolCallId, brokered.result);
      }
      await appendEvent(tx, sessionId, brokeredEvent(request, brokered, latencyMs));
      return recordedAnswer(tx, request);
    });
  }

  return async function broker(
    request: GateRequest,
    answer: DecidedAnswer,
  ): Promise<DecidedAnswer> {
    const { run, called } = await frozen.call(request);
    if (answer.decision !== 'allow' || !request.execute || called.frozen?.class !== 'brokered')
      return answer;

    const claim = await claimBrokeredCall(pool, request.session_id, request.tool_call_id);
    if (claim.state === 'finished') return recordedAnswer(pool, request);
    const started = Date.now();
    const brokered: Brokered =
      claim.state === 'unknown'
        ? {
            outcome: 'failed',
            result: toolError(
              'an earlier attempt to execute this call did not finish; it is not repeated',
            ),
          }
        : await execute(called, request, run);
    return record(request, brokered, Date.now() - started);
  };
}

/**
 * Records a brokered call whose every broker attempt failed, like any result: the error result
 * in the answer and tool.brokered (`failed`), so the call never reads "evaluating" forever. An
 * attempt that did finish after all keeps its own record.
 */
export function brokerFailureActivity(pool: Pool) {
  return async function recordBrokerFailure(
    request: GateRequest,
    failed: DecidedAnswer,
  ): Promise<DecidedAnswer> {
    const result = failed.result ?? toolError('the call could not be carried out');
    const { session_id: sessionId, tool_call_id: toolCallId } = request;
    return withTransaction(pool, async (tx) => {
      await settleFailedBrokeredCall(tx, sessionId, toolCallId, result);
      await recordBrokeredResult(tx, sessionId, toolCallId, result);
      await appendEvent(tx, sessionId, brokeredEvent(request, { outcome: 'failed', result }, null));
      return recordedAnswer(tx, request);
    });
  };
}
