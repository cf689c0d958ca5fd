/**
 * What a runner reads of its run's tools (`GET /v1/sessions/{id}/toolset`): the server writes it,
 * the runner's code (the gate MCP proxy) serves it. No binding, nothing of a credential.
 */
import type { FrozenTool, ToolClass } from './tools.js';

/** A frozen tool as its runner needs it to serve it: no binding, nothing of a credential. */
export interface RunnerTool {
  name: string;
  mcp_name?: string;
  description: string;
  input_schema: Record<string, unknown>;
  effect: FrozenTool['effect'];
  annotations?: Record<string, unknown>;
  digest: string;
  callable: boolean;
}

/** The tools a run froze from one bundle or connection, under that origin's name. */
export interface ToolOrigin {
  name: string;
  kind: 'bundle' | 'connection';
  class: ToolClass;
  /** A photographed bundle's stdio MCP server, which the runner starts in its sandbox. */
  command?: { cmd: string; args: string[] };
  tools: RunnerTool[];
}

export interface SessionToolset {
  run_id: string;
  toolset_digest: string;
  origins: ToolOrigin[];
}
