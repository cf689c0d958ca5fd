import { randomUUID } from 'node:crypto';
import type { CanUseTool, PermissionResult } from '@anthropic-ai/claude-agent-sdk';
import type { DecidedAnswer } from '../domain/gate/vocabulary.js';
import type { GateDecider } from './gate-client.js';
import { endsTheRun, refusedInteraction, servedByGateProxy } from './gated-call.js';

export function permissionFrom(
  answer: DecidedAnswer,
  tool: string,
  input: Record<string, unknown>,
): PermissionResult {
  if (answer.decision === 'allow') {
    const refused = refusedInteraction(tool);
    if (refused) return { behavior: 'deny', message: refused, interrupt: false };
    // No updatedPermissions, ever: a rule remembered by the SDK would decide later calls itself.
    return { behavior: 'allow', updatedInput: input };
  }
  // A schema denial names the failing paths: the model reads it and can correct itself.
  return { behavior: 'deny', message: answer.reason, interrupt: endsTheRun(answer) };
}

/**
 * The agent SDK's permission callback, backed by the gate: the second line behind the
 * PreToolUse hook of `gateQueryOptions` (the SDK asks it only for calls nothing else decided).
 * It uses the SDK's tool-use id as the tool-call id, so a call the hook handed over, or a
 * restarted runner, re-attaches to the same decision. Any failure to get a decision denies.
 */
export function gateCanUseTool(
  client: GateDecider,
  options: { gateProxies?: ReadonlySet<string> } = {},
): CanUseTool {
  const gateProxies = options.gateProxies ?? new Set<string>();
  return async (toolName, input, { signal, toolUseID, mcpServer }) => {
    if (servedByGateProxy(toolName, mcpServer, gateProxies)) {
      return { behavior: 'allow', updatedInput: input };
    }
    try {
      const answer = await client.decide(
        toolUseID || randomUUID(),
        { tool: toolName, arguments: input },
        { signal },
      );
      return permissionFrom(answer, toolName, input);
    } catch (err) {
      return {
        behavior: 'deny',
        message: `the gate could not decide (${(err as Error).message}); denied`,
        interrupt: false,
      };
    }
  };
}
