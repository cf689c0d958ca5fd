import { photographStdio } from '../broker/stdio-mcp-server.js';
import { photographMcpTools, type UnusableMcpTool } from '../domain/tools/mcp-tools.js';
import {
  photographDeclaredTool,
  photographDigest,
  type DeclaredTool,
  type PhotographedTool,
} from '../domain/tools/tools.js';
import { insertCapabilityBundle, type CapabilityBundle } from '../store/capability-bundles.js';
import type { Pool } from '../store/pool.js';
import { workspaceExists } from '../store/workspaces.js';
import { ConflictError, NotFoundError } from '../domain/errors.js';

interface BundleRequest {
  workspace: string;
  name: string;
  version: string;
  /** A declared bundle: its tools as given. */
  tools?: DeclaredTool[] | undefined;
  /** A photographed bundle: its stdio MCP server, started once to list its tools. */
  command?: { cmd: string; args: string[] } | undefined;
}

/** Upper bound on starting the bundle's server and listing its tools. */
const photographTimeoutMs = 20_000;

async function bundleTools(
  request: BundleRequest,
): Promise<{ tools: PhotographedTool[]; unusable: UnusableMcpTool[] }> {
  if (!request.command)
    return { tools: (request.tools ?? []).map(photographDeclaredTool), unusable: [] };
  const listed = await photographStdio(request.command, { timeoutMs: photographTimeoutMs });
  return photographMcpTools(request.name, listed);
}

/**
 * Registers a version of a sandbox tool bundle, declared or photographed from its stdio MCP
 * server. Versions are immutable: the same name and version again is a conflict.
 */
export async function registerCapabilityBundle(
  pool: Pool,
  request: BundleRequest,
): Promise<CapabilityBundle> {
  if (!(await workspaceExists(pool, request.workspace))) {
    throw new NotFoundError(`workspace ${request.workspace}`);
  }
  const { tools, unusable } = await bundleTools(request);
  const bundle = await insertCapabilityBundle(pool, {
    workspace_id: request.workspace,
    name: request.name,
    version: request.version,
    tools,
    digest: photographDigest({ tools }),
    command: request.command ?? null,
    unusable,
  });
  if (!bundle) {
    throw new ConflictError(
      `bundle ${request.name} version ${request.version} already exists; versions are immutable`,
    );
  }
  return bundle;
}
