import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import {
  CallToolRequestSchema,
  ListToolsRequestSchema,
  type CallToolRequest,
  type CallToolResult,
  type ServerNotification,
  type ServerRequest,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import type { RunnerTool, ToolOrigin } from '../../domain/tools/session-toolset.js';
import type { DecidedAnswer, PendingAnswer } from '../../domain/gate/vocabulary.js';
import { reportedDriftVerdict } from '../../domain/gate/reported-drift.js';
import { brokeredToolResult, toolError as gateToolError } from '../../domain/gate/tool-result.js';
import type { GateClient, ToolCallRequest } from '../gate-client.js';
import type { SandboxServer } from './sandbox-server.js';
import { toolCallIdOf } from './tool-call-id.js';

export interface GateMcpProxyOptions {
  client: GateClient;
  /** The one origin this proxy serves, under its own name. */
  origin: ToolOrigin;
  /** For a bundle: its server, started in the sandbox. Brokered origins have none. */
  sandbox?: SandboxServer;
  log: (message: string) => void;
}

type Extra = RequestHandlerExtra<ServerRequest, ServerNotification>;

const toolError = (text: string): CallToolResult => gateToolError(text);

/**
 * A stdio MCP server that serves one origin of a run's frozen tools and asks the gate about
 * every `tools/call`. It lists each tool under the part of its frozen name after
 * `mcp__<origin>__`, so a client that registers the proxy under the origin's name (as the Agent
 * SDK and Claude Code do) shows the model exactly the name the gate decides. An allowed sandbox
 * call goes to the bundle's server; a brokered one is carried out by the gate; a deny, and any
 * failure, is a tool result with `isError` and the reason.
 */
export class GateMcpProxy {
  readonly mcp = new McpServer(
    { name: 'fluidbox-gate-proxy', version: '0.1.0' },
    { capabilities: { tools: {} } },
  );
  readonly #options: GateMcpProxyOptions;
  readonly #prefix: string;
  readonly #tools: ReadonlyMap<string, RunnerTool>;

  constructor(options: GateMcpProxyOptions) {
    this.#options = options;
    this.#prefix = `mcp__${options.origin.name}__`;
    this.#tools = new Map(
      options.origin.tools
        .filter((tool) => tool.mcp_name !== undefined && tool.name.startsWith(this.#prefix))
        .map((tool) => [tool.name.slice(this.#prefix.length), tool]),
    );
    // The low-level handlers: raw frozen JSON Schema out, raw arguments in (the gate checks them).
    this.mcp.server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: this.#listed() }));
    this.mcp.server.setRequestHandler(CallToolRequestSchema, (request, extra) =>
      this.#call(request, extra),
    );
  }

  // Uncallable tools (a schema the gate's guard refused) are not offered: no call could pass.
  #listed(): Tool[] {
    return [...this.#tools]
      .filter(([, tool]) => tool.callable)
      .map(([listedName, tool]) => ({
        name: listedName,
        description: tool.description,
        inputSchema: tool.input_schema as Tool['inputSchema'],
        ...(tool.annotations && { annotations: tool.annotations }),
      }));
  }

  async #call(request: CallToolRequest, extra: Extra): Promise<CallToolResult> {
    const { name } = request.params;
    const args = request.params.arguments ?? {};
    const tool = this.#tools.get(name);
    const toolCallId = toolCallIdOf(request.params._meta);
    try {
      const call: ToolCallRequest = {
        tool: tool?.name ?? `${this.#prefix}${name}`,
        arguments: args,
      };
      if (tool && this.#options.origin.class === 'brokered') call.execute = true;
      if (tool && this.#options.sandbox) {
        call.observed_digest = await this.#options.sandbox.observedDigest(tool.name);
      }
      const answer = await this.#options.client.decide(toolCallId, call, {
        signal: extra.signal,
        onPending: this.#progress(request, extra),
      });
      return await this.#carryOut(answer, tool, args, extra.signal);
    } catch (err) {
      this.#options.log(`call ${toolCallId} to "${name}" failed: ${(err as Error).message}`);
      return toolError(`the call could not be decided or carried out (${(err as Error).message})`);
    }
  }

  async #carryOut(
    answer: DecidedAnswer,
    tool: RunnerTool | undefined,
    args: Record<string, unknown>,
    signal: AbortSignal,
  ): Promise<CallToolResult> {
    if (answer.decision !== 'allow') return toolError(answer.reason);
    if (!tool?.mcp_name) return toolError('the gate allowed a tool this proxy does not serve');
    if (this.#options.origin.class === 'brokered') return brokeredToolResult(answer);
    const { sandbox } = this.#options;
    if (!sandbox) return toolError('this proxy has no server for this tool');
    // A decision can take hours (an approval): what it allowed is the tool as frozen, so the
    // server is checked again just before the call goes to it.
    const now = reportedDriftVerdict(tool, await sandbox.observedDigest(tool.name));
    if (now.outcome === 'deny') {
      this.#options.log(`an allowed call to "${tool.name}" was not carried out: ${now.reason}`);
      return toolError(`${now.reason}; the call was allowed before that and is not carried out`);
    }
    return sandbox.call(tool.mcp_name, args, signal);
  }

  /** Progress notifications while a call waits for a person, when the client asked for them. */
  #progress(request: CallToolRequest, extra: Extra) {
    const progressToken = request.params._meta?.progressToken;
    if (progressToken === undefined) return undefined;
    let progress = 0;
    return (pending: PendingAnswer) => {
      progress += 1;
      void extra
        .sendNotification({
          method: 'notifications/progress',
          params: {
            progressToken,
            progress,
            message: `waiting for an approval (${pending.approval.url}, expires ${pending.approval.expires_at})`,
          },
        })
        .catch(() => undefined);
    };
  }
}
