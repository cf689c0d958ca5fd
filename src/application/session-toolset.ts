import type { RunnerTool, SessionToolset, ToolOrigin } from '../domain/tools/session-toolset.js';
import type { FrozenTool } from '../domain/tools/tools.js';
import { findCapabilityBundles } from '../store/capability-bundles.js';
import { findConnections } from '../store/connections.js';
import type { Queryable } from '../store/pool.js';
import type { FrozenRun } from '../store/runs.js';

function runnerTool(tool: FrozenTool & { annotations?: Record<string, unknown> }): RunnerTool {
  return {
    name: tool.name,
    ...(tool.mcp_name !== undefined && { mcp_name: tool.mcp_name }),
    description: tool.description,
    input_schema: tool.input_schema,
    effect: tool.effect,
    ...(tool.annotations !== undefined && { annotations: tool.annotations }),
    digest: tool.digest,
    callable: tool.callable,
  };
}

const originKey = (origin: FrozenTool['origin']) =>
  origin.kind === 'bundle' ? `bundle:${origin.bundle_id}` : `connection:${origin.connection_id}`;

/**
 * What a runner needs to serve its run's tools (the gate MCP proxy): the frozen tools grouped
 * by origin, each origin with its name and, for a photographed bundle, the command of its
 * server. Bundles are immutable, so their names and commands are those the run froze.
 */
export async function sessionToolset(db: Queryable, run: FrozenRun): Promise<SessionToolset> {
  const bundleIds = new Set<string>();
  const connectionIds = new Set<string>();
  for (const { origin } of run.toolset) {
    if (origin.kind === 'bundle') bundleIds.add(origin.bundle_id);
    else connectionIds.add(origin.connection_id);
  }
  const bundles = await findCapabilityBundles(db, run.workspace_id, [...bundleIds]);
  const connections = await findConnections(db, run.workspace_id, [...connectionIds]);
  const origins = new Map<string, ToolOrigin>();
  for (const tool of run.toolset) {
    const key = originKey(tool.origin);
    let origin = origins.get(key);
    if (!origin) {
      origin = describeOrigin(tool, bundles, connections);
      origins.set(key, origin);
    }
    origin.tools.push(runnerTool(tool));
  }
  return { run_id: run.id, toolset_digest: run.toolset_digest, origins: [...origins.values()] };
}

function describeOrigin(
  tool: FrozenTool,
  bundles: Awaited<ReturnType<typeof findCapabilityBundles>>,
  connections: Awaited<ReturnType<typeof findConnections>>,
): ToolOrigin {
  if (tool.origin.kind === 'bundle') {
    const { bundle_id } = tool.origin;
    const bundle = bundles.find((b) => b.id === bundle_id);
    return {
      name: bundle?.name ?? bundle_id,
      kind: 'bundle',
      class: tool.class,
      ...(bundle?.command && { command: bundle.command }),
      tools: [],
    };
  }
  const { connection_id } = tool.origin;
  return {
    name: connections.find((c) => c.id === connection_id)?.name ?? connection_id,
    kind: 'connection',
    class: tool.class,
    tools: [],
  };
}
