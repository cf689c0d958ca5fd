import { foreignText } from './foreign-text.js';
import { GateError } from '../errors.js';

/**
 * A static bound on how much work validating one value can take, for a foreign schema.
 *
 * A `$ref` loop that never moves into the instance (`allOf: [{$ref: "#"}]`) recurses forever,
 * and a recursion that applies the same subschema twice per level (`items: {anyOf: [{$ref:
 * "#"}, {$ref: "#"}]}`) doubles the work with every level of the argument. Both are found
 * here, on the schema alone, before ajv compiles anything.
 */

/**
 * Which children of a value a subschema applies to: `p:<name>` one property, `p*` any
 * property, `i:<index>` one array item, `i*` any item, `n` the property names.
 */
export type ChildKey = `p:${string}` | 'p*' | `i:${number}` | 'i*' | 'n';

export interface CostNode {
  /** For messages: where the subschema is. */
  pointer: string;
  /** Work of its own keywords on one value: 1, plus each enum value, plus uniqueItems' pairs. */
  weight: number;
  /** Keywords that read a string end to end: pattern, format, length, enum, const. */
  scans: number;
  /** Subschemas applied to the same value: allOf, anyOf, oneOf, not, if/then/else, $ref... */
  inPlace: number[];
  /** Subschemas applied to a child of the value. */
  children: { key: ChildKey; target: number }[];
}

interface CostLimits {
  /** Most units any one value may cost. */
  maxCostPerValue: number;
  /** Most distinct sets of subschemas the analysis may visit before it gives up. */
  maxStates: number;
}

type CostBound =
  | {
      ok: true;
      /** Most units of work any one value of the arguments can cost. */
      costPerValue: number;
      /** Most times any one string of the arguments can be read end to end. */
      scansPerString: number;
    }
  | { ok: false; reason: string };

/** Subschemas applied to one value, with how many times each is applied. */
type Applied = Map<number, number>;

class CostRefusal extends GateError {
  override name = 'CostRefusal';
  readonly code = 'schema_too_costly';
}

/**
 * A subschema's place as a refusal shows it: `#` and its JSON pointer, escaped and cut short,
 * since the names in it come from the foreign schema.
 */
export function showPointer(pointer: string): string {
  return foreignText(`#${pointer}`);
}

function addInto(into: Applied, from: Applied | undefined, times: number): void {
  for (const [node, count] of from ?? []) into.set(node, (into.get(node) ?? 0) + count * times);
}

function nodeAt(nodes: readonly CostNode[], id: number): CostNode {
  const node = nodes[id];
  if (!node) throw new RangeError(`no subschema ${id}`);
  return node;
}

function costOf(nodes: readonly CostNode[], applied: Applied): number {
  let cost = 0;
  for (const [node, count] of applied) cost += count * nodeAt(nodes, node).weight;
  return cost;
}

function scansOf(nodes: readonly CostNode[], applied: Applied): number {
  let scans = 0;
  for (const [node, count] of applied) scans += count * nodeAt(nodes, node).scans;
  return scans;
}

function stateKey(applied: Applied): string {
  return [...applied.entries()]
    .sort((a, b) => a[0] - b[0])
    .map(([node, count]) => `${node}x${count}`)
    .join(',');
}

/**
 * For every node, the subschemas applied along with it to the same value. Iterative
 * depth-first search; meeting a node that is still open is a loop that never ends.
 */
function inPlaceClosures(nodes: readonly CostNode[], limits: CostLimits): Map<number, Applied> {
  const closures = new Map<number, Applied>();
  const open = new Set<number>();
  for (let start = 0; start < nodes.length; start++) {
    if (closures.has(start)) continue;
    const stack: { node: number; next: number }[] = [{ node: start, next: 0 }];
    open.add(start);
    for (let frame = stack.at(-1); frame; frame = stack.at(-1)) {
      const { pointer, inPlace } = nodeAt(nodes, frame.node);
      const child = inPlace[frame.next];
      if (child !== undefined) {
        frame.next += 1;
        if (closures.has(child)) continue;
        if (open.has(child)) {
          throw new CostRefusal(
            `${showPointer(nodeAt(nodes, child).pointer)} applies itself to the same value through ` +
              '$ref: validation would never end',
          );
        }
        open.add(child);
        stack.push({ node: child, next: 0 });
        continue;
      }
      const closure: Applied = new Map([[frame.node, 1]]);
      for (const member of inPlace) addInto(closure, closures.get(member), 1);
      if (costOf(nodes, closure) > limits.maxCostPerValue) {
        throw new CostRefusal(
          `${showPointer(pointer)} applies more than ${limits.maxCostPerValue} ` +
            'units of subschemas to one value',
        );
      }
      closures.set(frame.node, closure);
      open.delete(frame.node);
      stack.pop();
    }
  }
  return closures;
}

interface State {
  /** Applied to property names: strings, with nothing below them. */
  names: boolean;
  applied: Applied;
}

/** The sets applied to each kind of child of a value that `applied` is applied to. */
function childStates(
  nodes: readonly CostNode[],
  closures: ReadonlyMap<number, Applied>,
  applied: Applied,
): State[] {
  const edges = new Map<ChildKey, { target: number; times: number }[]>();
  for (const [node, count] of applied) {
    for (const { key, target } of nodeAt(nodes, node).children) {
      const list = edges.get(key) ?? [];
      list.push({ target, times: count });
      edges.set(key, list);
    }
  }
  const collect = (keys: readonly ChildKey[]): Applied => {
    const state: Applied = new Map();
    for (const key of keys) {
      for (const { target, times } of edges.get(key) ?? []) {
        addInto(state, closures.get(target), times);
      }
    }
    return state;
  };
  const states: State[] = [];
  // A named child gets its own subschemas and the wildcard's: a pattern may match any name.
  for (const key of edges.keys()) {
    if (key.startsWith('p:')) states.push({ names: false, applied: collect([key, 'p*']) });
    if (key.startsWith('i:')) states.push({ names: false, applied: collect([key, 'i*']) });
  }
  states.push({ names: false, applied: collect(['p*']) });
  states.push({ names: false, applied: collect(['i*']) });
  states.push({ names: true, applied: collect(['n']) });
  return states.filter((state) => state.applied.size > 0);
}

/**
 * Explores every set of subschemas a value at any depth can meet, stopping where a set
 * repeats. A growing set never repeats, so it reaches the cost limit and is refused.
 */
export function boundValidationCost(
  nodes: readonly CostNode[],
  root: number,
  limits: CostLimits,
): CostBound {
  try {
    const closures = inPlaceClosures(nodes, limits);
    const start = closures.get(root) ?? new Map<number, number>();
    const seen = new Set<string>([`v${stateKey(start)}`]);
    const pending: State[] = [{ names: false, applied: start }];
    let costPerValue = 0;
    let scansPerString = 0;
    for (let state = pending.pop(); state; state = pending.pop()) {
      const cost = costOf(nodes, state.applied);
      if (cost > limits.maxCostPerValue) {
        throw new CostRefusal(
          `a value nested in the arguments could meet more than ${limits.maxCostPerValue} ` +
            'units of subschemas (a recursive $ref multiplies the work at every level)',
        );
      }
      costPerValue = Math.max(costPerValue, cost);
      scansPerString = Math.max(scansPerString, scansOf(nodes, state.applied));
      if (state.names) continue;
      for (const child of childStates(nodes, closures, state.applied)) {
        const key = `${child.names ? 'n' : 'v'}${stateKey(child.applied)}`;
        if (seen.has(key)) continue;
        if (seen.size >= limits.maxStates) {
          throw new CostRefusal(
            `more than ${limits.maxStates} combinations of subschemas to analyse: ` +
              'too complex to bound',
          );
        }
        seen.add(key);
        pending.push(child);
      }
    }
    return { ok: true, costPerValue, scansPerString };
  } catch (error) {
    if (error instanceof CostRefusal) return { ok: false, reason: error.message };
    throw error;
  }
}

/**
 * The most subschemas on one path from the root, following both nesting and `$ref`, with a
 * loop counted as all of its members. ajv compiles a `$ref`'s target inside the compile of
 * the `$ref`, on the call stack, so this bounds how deep its compiler recurses.
 */
export function longestCompilePath(nodes: readonly CostNode[], root: number): number {
  const successors = (id: number): number[] => {
    const node = nodeAt(nodes, id);
    return [...node.inPlace, ...node.children.map((child) => child.target)];
  };
  // Tarjan's strongly connected components, iteratively; a component is finished only after
  // every component it reaches, so the longest path out of each is known when it closes.
  const index = new Map<number, number>();
  const low = new Map<number, number>();
  const onStack = new Set<number>();
  const stack: number[] = [];
  const longestFrom = new Map<number, number>();
  const frames: { node: number; next: number; edges: number[] }[] = [
    { node: root, next: 0, edges: successors(root) },
  ];
  index.set(root, 0);
  low.set(root, 0);
  stack.push(root);
  onStack.add(root);
  for (let frame = frames.at(-1); frame; frame = frames.at(-1)) {
    const next = frame.edges[frame.next];
    if (next !== undefined) {
      frame.next += 1;
      if (!index.has(next)) {
        index.set(next, index.size);
        low.set(next, index.size - 1);
        stack.push(next);
        onStack.add(next);
        frames.push({ node: next, next: 0, edges: successors(next) });
      } else if (onStack.has(next)) {
        low.set(frame.node, Math.min(low.get(frame.node) ?? 0, index.get(next) ?? 0));
      }
      continue;
    }
    frames.pop();
    const parent = frames.at(-1);
    if (parent) low.set(parent.node, Math.min(low.get(parent.node) ?? 0, low.get(frame.node) ?? 0));
    if (low.get(frame.node) !== index.get(frame.node)) continue;
    const members: number[] = [];
    for (let member = stack.pop(); member !== undefined; member = stack.pop()) {
      onStack.delete(member);
      members.push(member);
      if (member === frame.node) break;
    }
    const inside = new Set(members);
    let beyond = 0;
    for (const member of members) {
      for (const target of successors(member)) {
        if (!inside.has(target)) beyond = Math.max(beyond, longestFrom.get(target) ?? 0);
      }
    }
    for (const member of members) longestFrom.set(member, members.length + beyond);
  }
  return longestFrom.get(root) ?? 0;
}
