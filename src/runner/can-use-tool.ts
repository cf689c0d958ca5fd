import { randomUUID } from 'node:crypto';
import type { DecidedAnswer } from '../domain/gate/vocabulary.js';
import type { GateClient } from './gate-client.js';

/** The Claude Agent SDK's permission callback, structurally (no dependency on the SDK). */
export type PermissionResult =
  | { behavior: 'allow'; updatedInput: Record<string, unknown> }
  | { behavior: 'deny'; message: string; interrupt?: boolean };

export type CanUseTool = (
  toolName: string,
  input: Record<string, unknown>,
  options: { signal: AbortSignal; toolUseID?: string; suggestions?: unknown },
) => Promise<PermissionResult>;

/** Denials that end the run rather than inviting the model to try something else. */
const endsTheRun = new Set(['budget', 'binding']);

export function permissionFrom(
  answer: DecidedAnswer,
  input: Record<string, unknown>,
): PermissionResult {
  if (answer.decision === 'allow') return { behavior: 'allow', updatedInput: input };
  return {
    behavior: 'deny',
    // A schema denial names the failing paths: the model reads it and can correct itself.
    message: answer.reason,
    interrupt: answer.source !== undefined && endsTheRun.has(answer.source),
  };
}

/**
 * The permission callback to wire into the agent SDK in both autonomy modes: every tool call is
 * decided by the gate; the SDK's own permission-bypass mode is never used. Any failure to get a
 * decision denies (fail closed).
 */
export function gateCanUseTool(client: GateClient): CanUseTool {
  return async (toolName, input, { signal, toolUseID }) => {
    try {
      const answer = await client.decide(
        toolUseID ?? randomUUID(),
        { tool: toolName, arguments: input },
        signal,
      );
      return permissionFrom(answer, input);
    } catch (err) {
      return {
        behavior: 'deny',
        message: `the gate could not decide (${(err as Error).message}); denied`,
        interrupt: false,
      };
    }
  };
}
