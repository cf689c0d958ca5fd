import { digestOf } from '../ledger/digest.js';
import { jsonDepthWithin } from './json-depth.js';

/** Far above the schema guard's depth limit, far below what would overflow a digest. */
const maxPhotographDepth = 256;
import { toolNameSchema, type Effect, type PhotographedTool } from './tools.js';

/**
 * The hints an MCP server may attach to a tool. They are the server's claims, not proofs: only
 * `readOnlyHint: true` lowers a tool's effect to `read`, and every hint is part of the digest.
 */
export interface McpToolAnnotations {
  title?: string;
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
}

/** One entry of an MCP `tools/list` answer, as the server sent it. */
export interface McpListedTool {
  name: string;
  description?: string;
  inputSchema: Record<string, unknown>;
  annotations?: McpToolAnnotations;
}

/** An MCP tool in a connection's or bundle's photograph. */
export interface McpPhotographedTool extends PhotographedTool {
  /** The name the server itself uses: what a brokered call must send upstream. */
  mcp_name: string;
  annotations: McpToolAnnotations;
}

/** A listed tool no model-facing name can be given to; it is left out of the photograph. */
export interface UnusableMcpTool {
  mcp_name: string;
  reason: string;
}

export interface McpPhotograph {
  tools: McpPhotographedTool[];
  unusable: UnusableMcpTool[];
}

/** Digest of an MCP tool: the fields of `toolDigest` plus the upstream name and the hints. */
function mcpToolDigest(tool: Omit<McpPhotographedTool, 'digest'>): string {
  return digestOf({
    name: tool.name,
    mcp_name: tool.mcp_name,
    description: tool.description,
    input_schema: tool.input_schema,
    effect: tool.effect,
    annotations: tool.annotations,
  });
}

// The agent SDK turns every character outside [A-Za-z0-9_-] into "_" when it names MCP tools;
// doing the same means the gate sees exactly the name the model called.
function normaliseNamePart(part: string): string {
  return part.replace(/[^A-Za-z0-9_-]/g, '_');
}

/** The model-facing name `mcp__<origin>__<tool>`, or why there can be none. */
export function mcpToolName(
  origin: string,
  mcpName: string,
): { ok: true; name: string } | { ok: false; reason: string } {
  if (origin === '') return { ok: false, reason: 'the connection or bundle has an empty name' };
  if (mcpName === '') return { ok: false, reason: 'the server listed a tool with an empty name' };
  const name = `mcp__${normaliseNamePart(origin)}__${normaliseNamePart(mcpName)}`;
  if (!toolNameSchema.safeParse(name).success) {
    return { ok: false, reason: `"${name.slice(0, 140)}" is longer than 128 characters` };
  }
  return { ok: true, name };
}

const hintNames = ['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint'] as const;

// Keeps only the hints the MCP specification defines, with the right types, so a photograph read
// back from storage or sent by a sloppy server digests the same way as one parsed by the SDK.
function normaliseAnnotations(raw: unknown): McpToolAnnotations {
  if (typeof raw !== 'object' || raw === null) return {};
  const source = raw as Record<string, unknown>;
  const annotations: McpToolAnnotations = {};
  if (typeof source.title === 'string') annotations.title = source.title;
  for (const hint of hintNames) {
    const value = source[hint];
    if (typeof value === 'boolean') annotations[hint] = value;
  }
  return annotations;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A tool is `read` only when its server says so; anything unclear is `write`. */
function mcpToolEffect(annotations: McpToolAnnotations): Effect {
  return annotations.readOnlyHint === true ? 'read' : 'write';
}

/**
 * Photographs a server's `tools/list` under one origin (the connection's or bundle's name).
 * Tools whose names would collide once normalised are all left out: a call could not say which
 * upstream tool it meant.
 */
export function photographMcpTools(
  origin: string,
  listed: readonly McpListedTool[],
): McpPhotograph {
  const unusable: UnusableMcpTool[] = [];
  const byName = new Map<string, McpPhotographedTool[]>();
  for (const entry of listed) {
    const named = mcpToolName(origin, entry.name);
    if (!named.ok) {
      unusable.push({ mcp_name: entry.name, reason: named.reason });
      continue;
    }
    if (!isPlainObject(entry.inputSchema)) {
      unusable.push({ mcp_name: entry.name, reason: 'the server gave no input schema object' });
      continue;
    }
    // Digests recurse: a schema nested beyond any sane depth is refused before one is taken.
    if (
      !jsonDepthWithin(entry.inputSchema, maxPhotographDepth) ||
      !jsonDepthWithin(entry.annotations ?? {}, 8)
    ) {
      unusable.push({
        mcp_name: entry.name,
        reason: `the input schema nests deeper than ${maxPhotographDepth} levels`,
      });
      continue;
    }
    const annotations = normaliseAnnotations(entry.annotations);
    const photographed = {
      name: named.name,
      mcp_name: entry.name,
      description: entry.description ?? '',
      input_schema: entry.inputSchema,
      effect: mcpToolEffect(annotations),
      annotations,
    };
    const tool = { ...photographed, digest: mcpToolDigest(photographed) };
    byName.set(named.name, [...(byName.get(named.name) ?? []), tool]);
  }
  const tools: McpPhotographedTool[] = [];
  for (const [name, candidates] of byName) {
    const [only, ...others] = candidates;
    if (only && others.length === 0) {
      tools.push(only);
      continue;
    }
    const upstream = candidates.map((tool) => JSON.stringify(tool.mcp_name)).join(', ');
    for (const tool of candidates) {
      unusable.push({
        mcp_name: tool.mcp_name,
        reason: `"${name}" would name more than one listed tool (${upstream})`,
      });
    }
  }
  return { tools, unusable };
}

export interface PhotographDiff {
  added: string[];
  withdrawn: string[];
  changed: string[];
}

/** What a re-photograph added, withdrew or changed, by model-facing name and digest. */
export function diffPhotographs(
  before: readonly { name: string; digest: string }[],
  after: readonly { name: string; digest: string }[],
): PhotographDiff {
  const previous = new Map(before.map((tool) => [tool.name, tool.digest]));
  const current = new Map(after.map((tool) => [tool.name, tool.digest]));
  const added = [...current.keys()].filter((name) => !previous.has(name));
  const withdrawn = [...previous.keys()].filter((name) => !current.has(name));
  const changed = [...current].filter(([name, digest]) => {
    const earlier = previous.get(name);
    return earlier !== undefined && earlier !== digest;
  });
  return {
    added: added.sort(),
    withdrawn: withdrawn.sort(),
    changed: changed.map(([name]) => name).sort(),
  };
}
