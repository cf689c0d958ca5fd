import { unstorableFields } from '../../domain/gate/storable-text.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import {
  CallToolRequestSchema,
  CancelTaskRequestSchema,
  ErrorCode,
  GetTaskPayloadRequestSchema,
  GetTaskRequestSchema,
  ListToolsRequestSchema,
  McpError,
  type CallToolRequest,
  type CallToolResult,
  type ServerNotification,
  type ServerRequest,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import {
  awaitMcpTask,
  callThroughMcp,
  cancelMcpTask,
  mcpTask,
  remoteTools,
  startMcpTask,
  type McpCall,
} from '../../application/tool-call/mcp-calls.js';
import { ConflictError, NotFoundError } from '../../domain/errors.js';
import { brokeredToolResult, toolError } from '../../domain/gate/tool-result.js';
import type { PendingAnswer } from '../../domain/gate/vocabulary.js';
import { MAX_ARGUMENT_DEPTH } from '../../domain/tools/argument-validation.js';
import { jsonDepthWithin } from '../../domain/tools/json-depth.js';
import type { ApiContext } from '../context.js';
import { problemFor } from '../error-mapping.js';
import type { McpPrincipal } from './bearer.js';
import { taskOf } from './tasks.js';
import { frozenTool } from '../../domain/tools/tools.js';

type Extra = RequestHandlerExtra<ServerRequest, ServerNotification>;

const gateServerInfo = { name: 'fluidbox-gate', version: '0.1.0' };

/** What a revoked run's client reads for every call. */
const revokedRunMessage =
  'this run was revoked: its tools are gone, and no call of it is carried out any more';

/**
 * The gate as an MCP server for one request of one run (the transport is stateless: every
 * request builds its own, so any API process answers any request). It lists the run's frozen
 * brokered tools and puts every `tools/call` to the gate; tasks are the gate's tool calls.
 */
export function gateMcpServer(
  ctx: ApiContext,
  principal: McpPrincipal,
  requestId: string,
): McpServer {
  const { run } = principal;
  const mcp = new McpServer(gateServerInfo, {
    capabilities: {
      tools: { listChanged: true },
      tasks: { cancel: {}, requests: { tools: { call: {} } } },
    },
  });

  mcp.server.setRequestHandler(methodOnly('tools/list'), (raw) => {
    checked(ListToolsRequestSchema, raw);
    return { tools: principal.revoked ? [] : remoteTools(run).map(listedTool) };
  });

  mcp.server.setRequestHandler(methodOnly('tools/call'), async (raw, extra) => {
    const request = checked(CallToolRequestSchema, raw);
    const call = mcpCallOf(request);
    if (principal.revoked) return refusedCall(request, revokedRunMessage);
    const tool = frozenTool(run.toolset, call.tool);
    if (tool && tool.class !== 'brokered')
      return refusedCall(request, sandboxToolMessage(call.tool));
    try {
      if (request.params.task) {
        return { task: taskOf(await startMcpTask(ctx, run, call, requestId)) };
      }
      const { state } = await callThroughMcp(ctx, run, call, ctx.mcpApprovalWaitMs, extra.signal, {
        requestId,
        onPending: progressOf(request, extra),
      });
      if (state.status === 'decided') return brokeredToolResult(state);
      return toolError(callAgain(state));
    } catch (err) {
      return refusedCall(request, gateRefusal(err));
    }
  });

  mcp.server.setRequestHandler(methodOnly('tasks/get'), async (raw) => {
    const taskId = taskIdOf(checked(GetTaskRequestSchema, raw).params.taskId);
    if (principal.revoked) throw new McpError(ErrorCode.InvalidRequest, revokedRunMessage);
    return taskOf(await taskFor(() => mcpTask(ctx, run, taskId)));
  });

  mcp.server.setRequestHandler(methodOnly('tasks/result'), async (raw, extra) => {
    const taskId = taskIdOf(checked(GetTaskPayloadRequestSchema, raw).params.taskId);
    if (principal.revoked) throw new McpError(ErrorCode.InvalidRequest, revokedRunMessage);
    const answer = await taskFor(() => awaitMcpTask(ctx, run, taskId, extra.signal));
    if (!answer) throw new McpError(ErrorCode.RequestTimeout, `task ${taskId} is not decided yet`);
    return {
      ...brokeredToolResult(answer),
      _meta: { 'io.modelcontextprotocol/related-task': { taskId } },
    };
  });

  mcp.server.setRequestHandler(methodOnly('tasks/cancel'), async (raw) => {
    const taskId = taskIdOf(checked(CancelTaskRequestSchema, raw).params.taskId);
    if (principal.revoked) throw new McpError(ErrorCode.InvalidRequest, revokedRunMessage);
    return taskOf(await taskFor(() => cancelMcpTask(ctx, run, taskId)));
  });

  return mcp;
}

/**
 * A request routed by its method alone: its parameters are checked in the handler (`checked`),
 * so that a malformed one is answered `InvalidParams` naming the field, not an internal error.
 */
const methodOnly = <M extends string>(method: M) => z.looseObject({ method: z.literal(method) });

interface RequestSchema<T> {
  safeParse(
    value: unknown,
  ):
    | { success: true; data: T }
    | { success: false; error: { issues: { path: PropertyKey[]; message: string }[] } };
}

function checked<T>(schema: RequestSchema<T>, request: unknown): T {
  const parsed = schema.safeParse(request);
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.map(
    (issue) => `${issue.path.map(String).join('.') || 'the request'}: ${issue.message}`,
  );
  throw new McpError(ErrorCode.InvalidParams, problems.join('; '));
}

/** A frozen tool as `/mcp` lists it: its frozen name, schema and annotations, as the gate froze them. */
function listedTool(tool: ReturnType<typeof remoteTools>[number]): Tool {
  const { annotations } = tool as { annotations?: Tool['annotations'] };
  return {
    name: tool.name,
    description: tool.description,
    inputSchema: tool.input_schema as Tool['inputSchema'],
    ...(annotations && { annotations }),
    // A call that needs a person may come back as a task, for a client that takes them.
    execution: { taskSupport: 'optional' },
  };
}

/** The longest tool name a call may give, as the REST route takes it. */
const maxToolNameLength = 256;

function mcpCallOf(request: CallToolRequest): McpCall {
  const args = request.params.arguments ?? {};
  if (!jsonDepthWithin(args, MAX_ARGUMENT_DEPTH)) {
    throw new McpError(
      ErrorCode.InvalidParams,
      `params.arguments may nest at most ${MAX_ARGUMENT_DEPTH} levels deep`,
    );
  }
  const name = request.params.name;
  if (name.length === 0 || name.length > maxToolNameLength) {
    throw new McpError(
      ErrorCode.InvalidParams,
      `params.name must be 1 to ${maxToolNameLength} characters`,
    );
  }
  // What the state of record cannot hold is refused before it is asked to (never a 500).
  const [unstorable] = unstorableFields({ name, arguments: args }, 1);
  if (unstorable) {
    throw new McpError(
      ErrorCode.InvalidParams,
      `params.${unstorable.path.join('.')}: ${unstorable.message}`,
    );
  }
  return { tool: name, arguments: args };
}

/** A task id the gate could have given: anything else names no task of this run. */
function taskIdOf(taskId: string): string {
  if (!/^[A-Za-z0-9._:-]{1,200}$/.test(taskId))
    throw new McpError(ErrorCode.InvalidParams, 'task not found');
  return taskId;
}

/** A call refused before the gate was asked: a tool error, or a task already failed. */
function refusedCall(request: CallToolRequest, reason: string) {
  if (!request.params.task) return toolError(reason) as CallToolResult;
  throw new McpError(ErrorCode.InvalidRequest, reason);
}

/** What the model reads when the call was not decided within the client's wait. */
function callAgain(state: PendingAnswer | { status: 'evaluating' }) {
  const again = 'Make the same call again, with the same arguments, to wait for';
  if (state.status === 'evaluating') {
    return `this call is still being decided or carried out. ${again} its result: it runs at most once.`;
  }
  const { url, expires_at } = state.approval;
  return (
    `this call is waiting for an approval at ${url} (until ${expires_at}). It has not run. ` +
    `${again} the decision: it will run at most once.`
  );
}

/** One progress notification when the call starts to wait, for a client that asked for them. */
function progressOf(request: CallToolRequest, extra: Extra) {
  const progressToken = request.params._meta?.progressToken;
  if (progressToken === undefined) return undefined;
  return (state: PendingAnswer | { status: string }) => {
    const message =
      'approval' in state
        ? `waiting for an approval at ${state.approval.url} (until ${state.approval.expires_at})`
        : 'being decided';
    void extra
      .sendNotification({
        method: 'notifications/progress',
        params: { progressToken, progress: 1, message },
      })
      .catch(() => undefined);
  };
}

const sandboxToolMessage = (tool: string) =>
  `${tool} runs in the run's own sandbox, not through the gate's remote MCP endpoint: ` +
  'only the tools this endpoint lists can be called here';

/**
 * Why the gate could not answer a call now, as the model reads it: a dependency away or too
 * many calls in flight is worth calling again; anything else is a protocol error.
 */
function gateRefusal(err: unknown): string {
  const problem = problemFor(err);
  if (problem.status === 503 || problem.status === 429) {
    return `the gate could not decide this call just now (${problem.detail}); make the same call again shortly`;
  }
  // An error nobody foresaw is logged by the process, never told in its own words.
  if (problem.status >= 500)
    throw new McpError(ErrorCode.InternalError, 'the gate could not answer this request');
  return problem.detail;
}

/** A task the run does not have is `InvalidParams` (per the tasks spec); a conflict is its reason. */
async function taskFor<T>(read: () => Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (err) {
    if (err instanceof NotFoundError) throw new McpError(ErrorCode.InvalidParams, 'task not found');
    if (err instanceof ConflictError) throw new McpError(ErrorCode.InvalidParams, err.message);
    if (err instanceof McpError) throw err;
    const problem = problemFor(err);
    // A dependency away is said so; anything else in the gate's words, never the error's own.
    throw new McpError(
      ErrorCode.InternalError,
      problem.status === 503 ? problem.detail : 'the gate could not answer this request',
    );
  }
}
