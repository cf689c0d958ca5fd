import { guardToolSchemas } from '../domain/tools/schema-guard.js';
import {
  DuplicateToolError,
  freezeToolSet,
  type FrozenTool,
  type ToolSource,
} from '../domain/tools/tools.js';
import { findCapabilityBundles } from '../store/capability-bundles.js';
import { findConnections } from '../store/connections.js';
import type { Queryable } from '../store/pool.js';
import { ForbiddenError, InvalidInputError, type FieldError } from '../domain/errors.js';

export interface ToolsRequest {
  bundles: string[];
  connections: { id: string; tools?: string[] | undefined }[];
}

/**
 * Resolves what a run attaches into tool sources, checking each is usable: bundles and active
 * connections of the workspace, a personal connection only for a run its owner invokes, and a
 * selected subset only of tools the connection offers.
 */
async function toolSources(
  db: Queryable,
  workspaceId: string,
  invokedBy: string,
  request: ToolsRequest,
) {
  const errors: FieldError[] = [];
  const bundleIds = [...new Set(request.bundles)];
  const bundles = await findCapabilityBundles(db, workspaceId, bundleIds);
  const sources: ToolSource[] = [];
  bundleIds.forEach((id, index) => {
    const bundle = bundles.find((b) => b.id === id);
    if (!bundle)
      errors.push({ path: `tools.bundles[${index}]`, message: `bundle ${id} does not exist` });
    else
      sources.push({
        class: 'sandbox',
        origin: { kind: 'bundle', bundle_id: id },
        binding: null,
        tools: bundle.tools,
      });
  });

  const connections = await findConnections(
    db,
    workspaceId,
    request.connections.map((c) => c.id),
  );
  request.connections.forEach((attached, index) => {
    const path = `tools.connections[${index}]`;
    const connection = connections.find((c) => c.id === attached.id);
    if (connection?.status !== 'active') {
      errors.push({
        path: `${path}.id`,
        message: `no active connection ${attached.id} in this workspace`,
      });
      return;
    }
    if (connection.kind === 'personal' && connection.owner_user_id !== invokedBy) {
      // One person's custody of their own credential: nobody else's run may carry it.
      throw new ForbiddenError(
        `connection ${connection.name} is personal: only a run its owner invokes may attach it`,
      );
    }
    const selected = attached.tools ? new Set(attached.tools) : undefined;
    for (const name of selected ?? []) {
      if (!connection.tools.some((t) => t.name === name)) {
        errors.push({
          path: `${path}.tools`,
          message: `connection ${connection.name} offers no tool "${name}"`,
        });
      }
    }
    sources.push({
      class: 'brokered',
      origin: { kind: 'connection', connection_id: connection.id },
      binding: {
        connection_id: connection.id,
        auth_generation: connection.auth_generation,
        owner_user_id: connection.owner_user_id,
      },
      tools: selected ? connection.tools.filter((t) => selected.has(t.name)) : connection.tools,
    });
  });
  if (errors.length > 0) throw new InvalidInputError('some attached tools cannot be used', errors);
  return sources;
}

/** The run's frozen tool set: every schema guarded as one set ($id collisions span sources). */
export async function freezeRunTools(
  db: Queryable,
  workspaceId: string,
  invokedBy: string,
  request: ToolsRequest,
): Promise<FrozenTool[]> {
  const sources = await toolSources(db, workspaceId, invokedBy, request);
  const uncallable = guardToolSchemas(sources.flatMap((s) => s.tools));
  try {
    return freezeToolSet(sources, uncallable);
  } catch (err) {
    if (err instanceof DuplicateToolError)
      throw new InvalidInputError(err.message, [{ path: 'tools', message: err.message }]);
    throw err;
  }
}
