/**
 * Branded identifiers of a gated call: a session id can never be passed where a tool-call id is
 * expected, nor a run id where a session id is. Brands are erased at run time; they are made at
 * the API boundary (path parameters), by the store (rows) and by these constructors.
 */
declare const brand: unique symbol;
type Brand<T, B extends string> = T & { readonly [brand]: B };

export type RunId = Brand<string, 'RunId'>;
export type SessionId = Brand<string, 'SessionId'>;
export type ToolCallId = Brand<string, 'ToolCallId'>;

/** Session and tool-call ids are chosen by runners: bounded, printable, no separators we use. */
export const externalIdPattern = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/;

export const asRunId = (s: string) => s as RunId;
export const asSessionId = (s: string) => s as SessionId;
export const asToolCallId = (s: string) => s as ToolCallId;

/** The gate workflow's id: one workflow per (session, tool call), whoever starts it. */
export function gateWorkflowId(sessionId: SessionId, toolCallId: ToolCallId): string {
  return `gate/${sessionId}/${toolCallId}`;
}
