import { z } from 'zod';
import { digestOf } from '../ledger/digest.js';
import { jsonDepthWithin } from './json-depth.js';
import { GateError } from '../errors.js';

/**
 * Tools are named as the model sees them: `mcp__<origin>__<tool>` for MCP tools, the bare
 * name for an agent's built-in tools.
 */
export const toolNameSchema = z
  .string()
  .regex(/^[A-Za-z0-9_-]{1,128}$/, 'a tool name is 1 to 128 letters, digits, "_" or "-"');

export const effectSchema = z.enum(['read', 'write']);
export type Effect = z.infer<typeof effectSchema>;
export type ToolClass = 'sandbox' | 'brokered';

/** A tool as a capability bundle declares it. An undeclared effect counts as `write`. */
export const declaredToolSchema = z
  .object({
    name: toolNameSchema,
    description: z.string().max(8192).optional(),
    input_schema: z
      .record(z.string(), z.unknown())
      .refine((schema) => jsonDepthWithin(schema, 256), {
        error: 'the schema nests deeper than 256 levels',
      })
      .optional(),
    effect: effectSchema.optional(),
  })
  .strict();
export type DeclaredTool = z.infer<typeof declaredToolSchema>;

/** One tool's entry in a bundle's or connection's photograph. */
export interface PhotographedTool {
  name: string;
  description: string;
  input_schema: Record<string, unknown>;
  effect: Effect;
  digest: string;
}

export interface Binding {
  connection_id: string;
  auth_generation: number;
  /** Set for a personal connection: its owner alone may decide approvals of its calls. */
  owner_user_id?: string | null;
}

/** One tool as a run froze it. Never changes after the run is created. */
export interface FrozenTool extends PhotographedTool {
  /** For an MCP tool: the name its server uses, which a brokered call sends upstream. */
  mcp_name?: string;
  class: ToolClass;
  origin: { kind: 'bundle'; bundle_id: string } | { kind: 'connection'; connection_id: string };
  binding: Binding | null;
  callable: boolean;
  uncallable_reason?: string;
}

/** The run's frozen entry for the tool a call names; undefined when the run froze none by that name. */
export function frozenTool(toolset: readonly FrozenTool[], name: string): FrozenTool | undefined {
  return toolset.find((tool) => tool.name === name);
}

/** The digest covers what the model and the gate rely on: name, description, schema, effect. */
export function toolDigest(tool: Omit<PhotographedTool, 'digest'>): string {
  return digestOf({
    name: tool.name,
    description: tool.description,
    input_schema: tool.input_schema,
    effect: tool.effect,
  });
}

export function photographDeclaredTool(tool: DeclaredTool): PhotographedTool {
  const entry = {
    name: tool.name,
    description: tool.description ?? '',
    input_schema: tool.input_schema ?? { type: 'object' },
    effect: tool.effect ?? 'write',
  };
  return { ...entry, digest: toolDigest(entry) };
}

/** The digest of a bundle's or connection's photograph: order-independent, over tool digests. */
export function photographDigest(photograph: { tools: readonly { digest: string }[] }): string {
  return digestOf(photograph.tools.map((t) => t.digest).sort());
}

/** The digest of a set of tools: order-independent, over each tool's frozen entry. */
export function toolSetDigest(tools: readonly { name: string }[]): string {
  return digestOf([...tools].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)));
}

export class DuplicateToolError extends GateError {
  override name = 'DuplicateToolError';
  readonly code = 'duplicate_tool';
}

/** One attached source of tools: a capability bundle or a brokered connection. */
export interface ToolSource {
  class: ToolClass;
  origin: FrozenTool['origin'];
  binding: Binding | null;
  tools: readonly PhotographedTool[];
}

/**
 * Freezes a run's tool set from its attached sources. Two tools of one name are refused; a tool
 * whose schema fails the guard (`uncallable`, by name) is frozen as uncallable with the reason.
 */
export function freezeToolSet(
  sources: readonly ToolSource[],
  uncallable: ReadonlyMap<string, string>,
): FrozenTool[] {
  const frozen = new Map<string, FrozenTool>();
  for (const source of sources) {
    for (const tool of source.tools) {
      if (frozen.has(tool.name)) {
        throw new DuplicateToolError(
          `tool "${tool.name}" is offered by more than one attached source`,
        );
      }
      const reason = uncallable.get(tool.name);
      frozen.set(tool.name, {
        ...tool,
        class: source.class,
        origin: source.origin,
        binding: source.binding,
        callable: reason === undefined,
        ...(reason !== undefined && { uncallable_reason: reason }),
      });
    }
  }
  return [...frozen.values()];
}
