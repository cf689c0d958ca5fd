import type { DecidedAnswer } from './vocabulary.js';

/** An MCP `CallToolResult` as the gate writes one: text content, an error or not. */
interface GateToolResult {
  [key: string]: unknown;
  content: { type: 'text'; text: string }[];
  isError?: boolean;
}

/** A tool execution error the model reads and can act on: never a protocol error. */
export function toolError(text: string): GateToolResult {
  return { isError: true, content: [{ type: 'text', text }] };
}

/**
 * What an MCP client is handed of a brokered call's decided answer: the governed result the
 * control plane got from the upstream, or the deny's reason as the tool's error.
 */
export function brokeredToolResult(answer: DecidedAnswer): GateToolResult {
  if (answer.decision !== 'allow') return toolError(answer.reason);
  return (answer.result as GateToolResult | undefined) ?? toolError('the gate gave no result');
}
