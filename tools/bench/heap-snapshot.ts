/**
 * What a process's JavaScript heap holds, by kind of object: a V8 heap snapshot of the API
 * process's main thread (the API, its hosted worker's JavaScript side), summed by
 * constructor (objects) or by V8's node type (strings, closures, code, arrays), so that two
 * snapshots, before and after many calls, show what the calls left behind.
 */
import { readFileSync } from 'node:fs';

interface Snapshot {
  snapshot: { meta: { node_fields: string[]; node_types: [string[], ...unknown[]] } };
  nodes: number[];
  strings: string[];
}

export interface HeapKinds {
  file: string;
  /** Retained nowhere else: each node's own size, by kind; and how many of each. */
  bytes: Map<string, number>;
  count: Map<string, number>;
}

/**
 * A snapshot summed by kind. Parsing one takes as much heap again as it describes: read them
 * after the process's memory is measured.
 */
export function heapKinds(file: string): HeapKinds {
  const parsed = JSON.parse(readFileSync(file, 'utf8')) as Snapshot;
  const fields = parsed.snapshot.meta.node_fields;
  const [types] = parsed.snapshot.meta.node_types;
  const stride = fields.length;
  const typeAt = fields.indexOf('type');
  const nameAt = fields.indexOf('name');
  const sizeAt = fields.indexOf('self_size');
  const bytes = new Map<string, number>();
  const count = new Map<string, number>();
  for (let i = 0; i < parsed.nodes.length; i += stride) {
    const type = types[parsed.nodes[i + typeAt] ?? 0] ?? '?';
    const kind =
      type === 'object' ? (parsed.strings[parsed.nodes[i + nameAt] ?? 0] ?? '?') : `(${type})`;
    bytes.set(kind, (bytes.get(kind) ?? 0) + (parsed.nodes[i + sizeAt] ?? 0));
    count.set(kind, (count.get(kind) ?? 0) + 1);
  }
  return { file, bytes, count };
}

/** Prints the kinds that grew most from `before` to `after`, per call when `calls` is given. */
export function printHeapGrowth(before: HeapKinds, after: HeapKinds, calls: number, top = 15) {
  const grown = [...after.bytes.entries()]
    .map(([kind, bytes]) => ({
      kind,
      bytes: bytes - (before.bytes.get(kind) ?? 0),
      count: (after.count.get(kind) ?? 0) - (before.count.get(kind) ?? 0),
    }))
    .sort((a, b) => b.bytes - a.bytes);
  const total = grown.reduce((sum, g) => sum + g.bytes, 0);
  process.stdout.write(
    `  JavaScript heap of the API's process (main thread), grown by ${(total / 2 ** 20).toFixed(1)} MiB, ${(total / calls / 1024).toFixed(1)} KiB a call; most grown:\n`,
  );
  for (const g of grown.slice(0, top))
    process.stdout.write(
      `    ${(g.bytes / 2 ** 20).toFixed(1).padStart(7)} MiB  ${(g.count / calls).toFixed(1).padStart(6)} a call  ${g.kind.slice(0, 80)}\n`,
    );
  process.stdout.write(`  snapshots: ${before.file}, ${after.file}\n`);
}
