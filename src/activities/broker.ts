import { connectionCredential, type ConnectionDeps } from '../application/connections.js';
import {
  connectionDial,
  oauthAccessToken,
  ReauthorizationNeededError,
} from '../application/oauth-connections.js';
import type { ListedTool } from '../broker/exchange-limits.js';
import { callToolHttp } from '../broker/http-mcp-server.js';
import { OAuthFlowError } from '../broker/oauth-client.js';
import { PhotographError, sandboxSentence } from '../broker/photograph-error.js';
import type { BearerCredential } from '../broker/sealing.js';
import { brokerVerdict, liveDefinitionVerdict } from '../domain/gate/broker-verdicts.js';
import type { CalledTool } from '../domain/gate/stage-verdicts.js';
import type { DecidedAnswer, Denial, GateRequest } from '../domain/gate/vocabulary.js';
import { photographMcpTools } from '../domain/tools/mcp-tools.js';
import {
  claimBrokeredCall,
  recordedBrokeredAnswer,
  recordBrokeredOutcome,
  toolError,
  type Brokered,
} from '../store/brokered-calls.js';
import { findConnection, touchConnection, type ConnectionRow } from '../store/connections.js';
import { findMember } from '../store/members.js';
import { findRunRevocation } from '../store/run-revocations.js';
import { toolAttributes } from '../telemetry/gate-attributes.js';
import { inSpan } from '../telemetry/tracing.js';
import type { FrozenRun } from '../store/runs.js';
import type { FrozenRuns } from './frozen-runs.js';
import { shareWaitMs, type WorkspaceShares } from './workspace-shares.js';

/**
 * Carries out an allowed brokered call for the sandbox: the credential never leaves the control
 * plane. Right before it is unsealed the capability verdict is given again on the connection as
 * it is now, and right before the call the server's live tools/list must still hold the frozen
 * digest; either refusing turns the allow into a deny at the call, and nothing is executed.
 */
export function brokerActivity(deps: ConnectionDeps, frozen: FrozenRuns, shares: WorkspaceShares) {
  const { pool } = deps;
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
    return inSpan(
      'mcp tools/call',
      toolAttributes(called.name, called.frozen !== undefined),
      () => callConfirmed(called, request, connection, confirm),
      (brokered) => ({ 'gate.brokered.outcome': brokered.outcome }),
    );
  }

  async function callConfirmed(
    called: CalledTool,
    request: GateRequest,
    connection: ConnectionRow,
    confirm: (listed: ListedTool[]) => Denial | undefined,
  ): Promise<Brokered> {
    const tool = { name: called.frozen?.mcp_name ?? called.name, arguments: request.arguments };
    const send = (credential: BearerCredential) =>
      callToolHttp(
        connection.url,
        credential,
        connectionDial(deps, connection.url, credential),
        tool,
        confirm,
      );
    try {
      const credential = await connectionCredential(deps, connection);
      const call = await send(credential).catch(async (err: unknown) => {
        // An OAuth server refusing the token: refresh once, then the call once more.
        if (!(err instanceof PhotographError) || err.code !== 'unauthorized') throw err;
        if (connection.credential_type !== 'oauth') throw err;
        return send(await oauthAccessToken(deps, connection, credential.token));
      });
      if (!call.called) return { outcome: 'denied', denial: call.refusal };
      await touchConnection(pool, connection.id);
      return { outcome: 'executed', result: call.result };
    } catch (err) {
      if (err instanceof ReauthorizationNeededError) {
        const reason = `${err.message} (checked at the call; nothing was executed)`;
        return { outcome: 'denied', denial: { outcome: 'deny', source: 'binding', reason } };
      }
      // The sandbox reads the kind of failure only: the server's own words are its owner's choice.
      if (err instanceof PhotographError) {
        const text = `the upstream call failed (${err.code}): ${sandboxSentence(err)}`;
        return { outcome: 'failed', result: toolError(text) };
      }
      if (err instanceof OAuthFlowError) {
        const text =
          "the upstream call failed (authorization): the connection's access token could not be refreshed";
        return { outcome: 'failed', result: toolError(text) };
      }
      throw err;
    }
  }

  return async function broker(
    request: GateRequest,
    answer: DecidedAnswer,
  ): Promise<DecidedAnswer> {
    const { run, called } = await frozen.call(request);
    if (answer.decision !== 'allow' || !request.execute || called.frozen?.class !== 'brokered')
      return answer;

    const claim = await claimBrokeredCall(pool, request.session_id, request.tool_call_id);
    if (claim.state === 'finished') return recordedBrokeredAnswer(pool, request);
    const started = Date.now();
    if (claim.state === 'unknown') {
      const text = 'an earlier attempt to execute this call did not finish; it is not repeated';
      return recordBrokeredOutcome(pool, request, failed(text), Date.now() - started);
    }
    const release = await shares.waitFor(run.workspace_id, shareWaitMs);
    if (!release) {
      const text = `the workspace has ${shares.perWorkspace} brokered calls under way, as many as it may at once; this call was not carried out: make it again when one has finished`;
      return recordBrokeredOutcome(pool, request, failed(text), Date.now() - started);
    }
    try {
      const brokered = await execute(called, request, run);
      return await recordBrokeredOutcome(pool, request, brokered, Date.now() - started);
    } finally {
      release();
    }
  };
}

const failed = (text: string): Brokered => ({ outcome: 'failed', result: toolError(text) });

/**
 * Records a brokered call whose every broker attempt failed, like any result, so the call never
 * reads "evaluating" forever.
 */
export function brokerFailureActivity(pool: ConnectionDeps['pool']) {
  return async function recordBrokerFailure(
    request: GateRequest,
    failed: DecidedAnswer,
  ): Promise<DecidedAnswer> {
    const result = failed.result ?? toolError('the call could not be carried out');
    return recordBrokeredOutcome(pool, request, { outcome: 'failed', result }, null);
  };
}
