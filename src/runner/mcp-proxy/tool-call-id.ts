import { randomUUID } from 'node:crypto';
import { externalIdPattern } from '../../domain/gate/ids.js';

/**
 * The `_meta` keys a client may name its tool call with: Claude Code (and the Agent SDK) send
 * the model's tool-use id as `claudecode/toolUseId`; any other client may send
 * `fluidbox/toolCallId`. Sending the same id again (after a proxy restart) re-attaches to the
 * same decision.
 */
export const toolCallIdKeys = ['claudecode/toolUseId', 'fluidbox/toolCallId'] as const;

/** The client's id for this call, or a fresh one when it gave none the gate can take. */
export function toolCallIdOf(meta: Record<string, unknown> | undefined): string {
  for (const key of toolCallIdKeys) {
    const value = meta?.[key];
    if (typeof value === 'string' && externalIdPattern.test(value)) return value;
  }
  return `mcp-${randomUUID()}`;
}
