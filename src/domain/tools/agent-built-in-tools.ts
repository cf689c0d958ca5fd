import type { DeclaredTool, Effect } from './tools.js';
import captured from './agent-sdk-tools.generated.json' with { type: 'json' };

/**
 * The built-in tools that only read, by hand and on purpose: every other built-in, and any tool
 * a later SDK adds, writes. `Agent` starts a subagent without acting itself; each call the
 * subagent makes passes the gate on its own. Reading MCP resources and loading a deferred tool's
 * schema (`ToolSearch`) change nothing. WebFetch and WebSearch are `write`: the model chooses
 * what they send out, so they can carry whatever the run has read to another server.
 */
const readOnlyBuiltIns: ReadonlySet<string> = new Set([
  'Read',
  'Glob',
  'Grep',
  'ToolSearch',
  'ListMcpResourcesTool',
  'ReadMcpResourceTool',
  'ReadMcpResourceDirTool',
  'TaskGet',
  'TaskList',
  'CronList',
  'ListAgents',
  'Agent',
]);

export function builtInToolEffect(name: string): Effect {
  return readOnlyBuiltIns.has(name) ? 'read' : 'write';
}

/** The SDK version whose tools `agentBuiltInTools` describes (`npm run capture-agent-tools`). */
export const agentSdkVersion: string = captured.sdk_version;

/**
 * The Claude Agent SDK's own tools as a capability bundle's declared `tools`: every tool the
 * installed SDK offers, with the input schema it sends to the model, captured from the SDK
 * itself rather than written by hand, so a legitimate call is never refused by a stricter copy.
 */
export const agentBuiltInTools: readonly DeclaredTool[] = captured.tools.map((tool) => ({
  name: tool.name,
  description: tool.description,
  input_schema: tool.input_schema,
  effect: builtInToolEffect(tool.name),
}));
