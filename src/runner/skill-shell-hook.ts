import { randomUUID } from 'node:crypto';
import type { HookCallback, HookJSONOutput } from '@anthropic-ai/claude-agent-sdk';
import type { GateDecider } from './gate-client.js';

const refused = (reason: string): HookJSONOutput => ({
  hookSpecificOutput: {
    hookEventName: 'PreSkillShellCommand',
    permissionDecision: 'deny',
    permissionDecisionReason: reason,
  },
});

/**
 * The hook that asks the gate about each shell command written into a skill or a command's text
 * (`` !`…` ``), which the SDK runs when the skill loads, outside any tool call: left to the SDK,
 * a command it deems read-only would run undecided. Each is asked as a call of the shell tool
 * that runs it (Bash), with the command as it would run, under the id the SDK gives it. Only an
 * allow lets it run (and the SDK's own check may still refuse it); anything else refuses it.
 */
export function gateSkillShellHook(client: GateDecider): HookCallback {
  return async (input, _toolUseID, { signal }) => {
    if (input.hook_event_name !== 'PreSkillShellCommand') return {};
    try {
      const answer = await client.decide(
        input.tool_use_id || randomUUID(),
        { tool: input.tool_name, arguments: { command: input.tool_input.command } },
        { signal },
      );
      return answer.decision === 'allow' ? {} : refused(answer.reason);
    } catch (err) {
      return refused(`the gate could not decide (${(err as Error).message}); denied`);
    }
  };
}
