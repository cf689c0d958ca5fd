/**
 * Branded identifiers: a session id can never be passed where a tool-call id is expected.
 * Brands are erased at run time; the constructors are the only place a plain string becomes one.
 */
declare const brand: unique symbol;
type Brand<T, B extends string> = T & { readonly [brand]: B };

export type WorkspaceId = Brand<string, 'WorkspaceId'>;
export type UserId = Brand<string, 'UserId'>;
export type RunId = Brand<string, 'RunId'>;
export type SessionId = Brand<string, 'SessionId'>;
export type ToolCallId = Brand<string, 'ToolCallId'>;
export type PolicyId = Brand<string, 'PolicyId'>;
export type BundleId = Brand<string, 'BundleId'>;

/** Session and tool-call ids are chosen by runners: bounded, printable, no separators we use. */
export const externalIdPattern = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/;

export const asWorkspaceId = (s: string) => s as WorkspaceId;
export const asUserId = (s: string) => s as UserId;
export const asRunId = (s: string) => s as RunId;
export const asSessionId = (s: string) => s as SessionId;
export const asToolCallId = (s: string) => s as ToolCallId;
export const asPolicyId = (s: string) => s as PolicyId;
export const asBundleId = (s: string) => s as BundleId;

/** The gate workflow's id: one workflow per (session, tool call), whoever starts it. */
export function gateWorkflowId(sessionId: SessionId, toolCallId: ToolCallId): string {
  return `gate/${sessionId}/${toolCallId}`;
}
