import { fileURLToPath } from 'node:url';
import type { McpStdioServerConfig, Options } from '@anthropic-ai/claude-agent-sdk';
import type { ToolOrigin } from '../domain/tools/session-toolset.js';
import { gateCanUseTool } from './can-use-tool.js';
import type { GateClient } from './gate-client.js';
import { interactiveTools } from './gated-call.js';
import { gatePreToolUseHook } from './pre-tool-use-hook.js';
import { gateSkillShellHook } from './skill-shell-hook.js';

/** How a runner starts the gate MCP proxy: a command and arguments, `--origin <name>` added. */
export interface ProxyCommand {
  command: string;
  args: string[];
}

export interface GateQueryOptionsInput {
  /**
   * How to start the gate MCP proxy for each origin of the run's MCP tools (photographed bundles
   * and connections); `false` registers none. By default this project's `bin/gate-mcp-proxy.js`.
   */
  mcpProxy?: ProxyCommand | false;
  /**
   * The PreToolUse hook's timeout (seconds, default a day). A pending approval is waited for in
   * the hook until shortly before it, then handed to `canUseTool`, which waits without a limit.
   */
  hookTimeoutS?: number;
}

/** The options `gateQueryOptions` sets; a runner spreads them into its `query()` options. */
export type GatedOptions = Required<
  Pick<
    Options,
    | 'settingSources'
    | 'permissionMode'
    | 'settings'
    | 'hooks'
    | 'canUseTool'
    | 'disallowedTools'
    | 'mcpServers'
    | 'mcpServersDelivery'
    | 'strictMcpConfig'
  >
>;

export const defaultProxyCommand: ProxyCommand = {
  command: process.execPath,
  args: [fileURLToPath(new URL('../../bin/gate-mcp-proxy.js', import.meta.url))],
};

const handOffMarginS = 30;
// The longest timer Node and the SDK accept.
const maxTimerMs = 2_147_483_647;

/** The run's origins that serve MCP tools: one gate MCP proxy each, under the origin's name. */
function mcpOrigins(origins: readonly ToolOrigin[]): ToolOrigin[] {
  return origins.filter((origin) => origin.tools.some((tool) => tool.mcp_name !== undefined));
}

function proxyServers(
  client: GateClient,
  origins: readonly ToolOrigin[],
  proxy: ProxyCommand,
  timeoutMs: number,
): Record<string, McpStdioServerConfig> {
  const { baseUrl, sessionId, sessionToken } = client.options;
  return Object.fromEntries(
    origins.map((origin) => [
      origin.name,
      {
        type: 'stdio',
        command: proxy.command,
        args: [...proxy.args, '--origin', origin.name],
        env: { GATE_URL: baseUrl, GATE_SESSION_ID: sessionId, GATE_SESSION_TOKEN: sessionToken },
        // A call may wait inside the proxy for an approval; the proxy's tools are always shown.
        timeout: timeoutMs,
        alwaysLoad: true,
      } satisfies McpStdioServerConfig,
    ]),
  );
}

/**
 * The `query()` options through which every tool call of a Claude Agent SDK agent reaches the
 * gate: a PreToolUse hook on every call (no matcher) that fails closed, `canUseTool` as the
 * second line that confirms each allow with the input that runs, a hook on the shell commands
 * in skills' text, no settings files (nothing pre-allows), the `default` permission mode with
 * bypass and auto mode switched off, no interactive tools, and a gate MCP proxy per origin of
 * the run's MCP tools, registered under the origin's name so the SDK names each tool exactly as
 * the gate froze it. Never add `allowedTools`, `bypassPermissions` or `dontAsk` to what it gives.
 */
export async function gateQueryOptions(
  client: GateClient,
  input: GateQueryOptionsInput = {},
): Promise<GatedOptions> {
  const hookTimeoutS = input.hookTimeoutS ?? 24 * 3600;
  const proxy = input.mcpProxy ?? defaultProxyCommand;
  const origins = proxy === false ? [] : mcpOrigins((await client.toolset()).origins);
  const gateProxies = new Set(origins.map((origin) => origin.name));
  const handOffAfterMs = Math.min(
    Math.max(hookTimeoutS - handOffMarginS, hookTimeoutS / 2) * 1000,
    maxTimerMs,
  );
  return {
    settingSources: [],
    permissionMode: 'default',
    settings: {
      permissions: {
        defaultMode: 'default',
        disableBypassPermissionsMode: 'disable',
        disableAutoMode: 'disable',
      },
    },
    hooks: {
      PreToolUse: [
        {
          hooks: [gatePreToolUseHook(client, { gateProxies, handOffAfterMs })],
          timeout: hookTimeoutS,
          onFailure: 'block',
        },
      ],
      PreSkillShellCommand: [
        { hooks: [gateSkillShellHook(client)], timeout: hookTimeoutS, onFailure: 'block' },
      ],
    },
    canUseTool: gateCanUseTool(client, { gateProxies }),
    disallowedTools: [...interactiveTools],
    mcpServers:
      proxy === false
        ? {}
        : proxyServers(client, origins, proxy, Math.min(hookTimeoutS * 1000, maxTimerMs)),
    // The proxies' environment holds the session token: keep it off the command line.
    mcpServersDelivery: 'initialize',
    strictMcpConfig: true,
  };
}
