import type { DecidedAnswer } from '../domain/gate/vocabulary.js';

/** Denials that end the run rather than inviting the model to try something else. */
const endingSources = new Set(['budget', 'binding']);

export function endsTheRun(answer: DecidedAnswer): boolean {
  return (
    answer.decision === 'deny' && answer.source !== undefined && endingSources.has(answer.source)
  );
}

/**
 * Tools that talk to a person at the runner (questions, plan review) rather than act. A gated
 * runner has no such person, and leaving plan mode would change the permission mode, so they
 * are not offered; should one be called anyway, the gate still records it and the runner
 * refuses it after the gate's answer.
 */
export const interactiveTools: readonly string[] = [
  'AskUserQuestion',
  'EnterPlanMode',
  'ExitPlanMode',
];

export function refusedInteraction(tool: string): string | undefined {
  return interactiveTools.includes(tool)
    ? `${tool} needs a person at the runner, and a gated run has none: decide yourself, or say what you need in your answer`
    : undefined;
}

/** Where the SDK says an MCP tool comes from (`mcp_server` of a hook, `mcpServer` of canUseTool). */
export interface McpServerProvenance {
  name: string;
  source: string;
}

// The agent SDK turns every character outside [A-Za-z0-9_-] into "_" when it names MCP tools.
const sdkNamePart = (part: string) => part.replace(/[^A-Za-z0-9_-]/g, '_');

/**
 * Whether a call goes to a gate MCP proxy this runner registered itself (`mcpServers`, source
 * `dynamic`). Such a proxy decides every call it serves, under the SDK's tool-use id, and is
 * the one place that carries the call out; deciding it here too would decide it twice.
 */
export function servedByGateProxy(
  tool: string,
  server: McpServerProvenance | undefined,
  gateProxies: ReadonlySet<string>,
): boolean {
  return (
    server !== undefined &&
    server.source === 'dynamic' &&
    gateProxies.has(server.name) &&
    tool.startsWith(`mcp__${sdkNamePart(server.name)}__`)
  );
}

export function isToolInput(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
