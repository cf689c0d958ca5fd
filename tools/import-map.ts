/**
 * `npm run import-map`: the rooms of `src/` (its folders and top files), the arrows between them
 * with how many imports each carries, every arrow that runs up a floor (eslint.config.js, floors),
 * the runner's imports of the server, and the cycles among files. Imports are read by
 * TypeScript's own pre-processor, type imports included; `--root <dir>` maps another tree.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import ts from 'typescript';
import { floors, runnerMayImport } from '../eslint.config.js';

const { values } = parseArgs({ options: { root: { type: 'string', default: 'src' } } });
const root = path.resolve(values.root);

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const file = path.join(dir, name);
    if (statSync(file).isDirectory()) return sourceFiles(file);
    return file.endsWith('.ts') ? [file] : [];
  });
}

const roomOf = (file: string) => path.relative(root, file).split(path.sep)[0] ?? '';
const floorOf = (room: string) => floors.findIndex((floor) => floor.includes(room));

/** Each file's imports of other files of the tree. */
const imports = new Map<string, string[]>();
for (const file of sourceFiles(root)) {
  const { importedFiles } = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
  imports.set(
    file,
    importedFiles
      .filter((imported) => imported.fileName.startsWith('.'))
      .map((imported) =>
        path.resolve(path.dirname(file), imported.fileName.replace(/\.js$/, '.ts')),
      ),
  );
}

const arrows = new Map<string, number>();
/** Imports that break the floors: up a floor, or from the runner into the server. */
const breaks: string[] = [];
for (const [file, targets] of imports) {
  for (const target of targets) {
    const [from, to] = [roomOf(file), roomOf(target)];
    if (from === to) continue;
    arrows.set(`${from} -> ${to}`, (arrows.get(`${from} -> ${to}`) ?? 0) + 1);
    const shared = runnerMayImport.includes(path.relative(root, target));
    // Workflows import the activities' types only: their own allow-list sees to it.
    const typesOnly = from === 'workflows' && to === 'activities';
    const up = floorOf(from) >= 0 && floorOf(to) > floorOf(from) && !typesOnly;
    const intoServer = from === 'runner' && to !== 'domain' && !shared;
    if (up || intoServer)
      breaks.push(`${path.relative(root, file)} -> ${path.relative(root, target)}`);
  }
}

/** Strongly connected components of more than one file (Tarjan): the import cycles. */
function cycles(): string[][] {
  let index = 0;
  const order = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const found: string[][] = [];
  const visit = (file: string) => {
    order.set(file, index);
    low.set(file, index++);
    stack.push(file);
    for (const target of imports.get(file) ?? []) {
      if (!imports.has(target)) continue;
      if (!order.has(target)) {
        visit(target);
        low.set(file, Math.min(low.get(file) ?? 0, low.get(target) ?? 0));
      } else if (stack.includes(target)) {
        low.set(file, Math.min(low.get(file) ?? 0, order.get(target) ?? 0));
      }
    }
    if (low.get(file) === order.get(file)) {
      const component: string[] = [];
      let member: string | undefined;
      do {
        member = stack.pop();
        if (member !== undefined) component.push(path.relative(root, member));
      } while (member !== undefined && member !== file);
      if (component.length > 1) found.push(component.sort());
    }
  };
  for (const file of imports.keys()) if (!order.has(file)) visit(file);
  return found;
}

const rooms = [...new Set([...imports.keys()].map(roomOf))].sort(
  (a, b) => floorOf(a) - floorOf(b) || a.localeCompare(b),
);
console.log('rooms (floor: files)');
for (const room of rooms) {
  const files = [...imports.keys()].filter((file) => roomOf(file) === room).length;
  const floor = floorOf(room);
  console.log(`  ${room.padEnd(12)} ${floor < 0 ? 'apart' : `floor ${floor}`}: ${files}`);
}
console.log('arrows (imports)');
for (const [arrow, count] of [...arrows].sort(([a], [b]) => a.localeCompare(b))) {
  console.log(`  ${arrow} ${count}`);
}
const loops = cycles();
console.log(`imports running up a floor, or from the runner into the server: ${breaks.length}`);
for (const arrow of breaks) console.log(`  ${arrow}`);
console.log(`cycles among files: ${loops.length}`);
for (const loop of loops) console.log(`  ${loop.join(' <-> ')}`);
