import { randomUUID } from 'node:crypto';
import type { HookCallback, HookJSONOutput } from '@anthropic-ai/claude-agent-sdk';
import type { DecidedAnswer } from '../domain/gate/vocabulary.js';
import type { GateDecider } from './gate-client.js';
import { endsTheRun, isToolInput, refusedInteraction, servedByGateProxy } from './gated-call.js';

export interface PreToolUseHookOptions {
  /** Names of the gate MCP proxies this runner registered: they decide their own calls. */
  gateProxies?: ReadonlySet<string>;
  /**
   * How long the hook waits for a pending approval before it hands the call to `canUseTool`
   * (which has no deadline) under the same tool-use id. Must end before the hook's timeout.
   */
  handOffAfterMs: number;
}

const decided = (
  permissionDecision: 'allow' | 'deny' | 'ask',
  reason: string,
  extra: Partial<HookJSONOutput> = {},
): HookJSONOutput => ({
  ...extra,
  hookSpecificOutput: {
    hookEventName: 'PreToolUse',
    permissionDecision,
    permissionDecisionReason: reason,
  },
});

export function hookOutput(answer: DecidedAnswer, tool: string): HookJSONOutput {
  if (answer.decision !== 'allow') {
    // The model reads the reason as the tool's error; a budget or binding deny ends the run.
    return decided(
      'deny',
      answer.reason,
      endsTheRun(answer) ? { continue: false, stopReason: answer.reason } : {},
    );
  }
  const refused = refusedInteraction(tool);
  if (refused) return decided('deny', refused);
  // Not "allow": another hook (a plugin's, an agent's) may rewrite the input after this one has
  // answered, and an allow would run the rewrite. "ask" sends the call to canUseTool with the
  // input that will run, which asks the gate again under the same id: the same input re-attaches
  // to this decision, a rewritten one is refused.
  return decided('ask', `${answer.reason} (canUseTool confirms it with the input that runs)`);
}

/**
 * The PreToolUse hook that asks the gate about every tool call the agent makes, before the
 * SDK's own permission logic (rules, modes, its read-only auto-allow) is consulted, with the
 * SDK's tool-use id as the tool-call id. A deny is final; an allow is answered "ask", which
 * makes the SDK ask `canUseTool` even for calls it would allow by itself, and `canUseTool`
 * confirms it under the same id with the input that is about to run. A pending approval is
 * waited for; one that outlasts `handOffAfterMs` is handed to `canUseTool` the same way, which
 * re-attaches to the same approval. Anything that keeps the gate from answering denies.
 */
export function gatePreToolUseHook(
  client: GateDecider,
  options: PreToolUseHookOptions,
): HookCallback {
  const gateProxies = options.gateProxies ?? new Set<string>();
  return async (input, toolUseID, { signal }) => {
    if (input.hook_event_name !== 'PreToolUse') return {};
    if (servedByGateProxy(input.tool_name, input.mcp_server, gateProxies)) {
      return decided('allow', 'decided by the gate MCP proxy that serves it');
    }
    if (!isToolInput(input.tool_input))
      return decided('deny', 'the tool input is not a JSON object');
    const handOff = new AbortController();
    const timer = setTimeout(() => {
      handOff.abort();
    }, options.handOffAfterMs);
    try {
      const answer = await client.decide(
        input.tool_use_id || toolUseID || randomUUID(),
        { tool: input.tool_name, arguments: input.tool_input },
        { signal: AbortSignal.any([signal, handOff.signal]) },
      );
      return hookOutput(answer, input.tool_name);
    } catch (err) {
      if (handOff.signal.aborted && !signal.aborted) {
        return decided('ask', 'still waiting for an approval; handed to canUseTool');
      }
      return decided('deny', `the gate could not decide (${(err as Error).message}); denied`);
    } finally {
      clearTimeout(timer);
    }
  };
}
