/**
 * One process of `npm test` that runs many test files in turn, so what they share (the API, the
 * SDKs) is loaded once per process instead of once per file: most of a short file's CPU went
 * there. Each file becomes one top-level suite named by its path; the `test`, `describe`,
 * `before` and `after` calls at its top level register inside that suite, so its hooks run around
 * its own tests exactly as they did at the top of a process of its own.
 *
 * The processes of a phase take files from one queue, slowest first, so they finish together.
 * Files run one at a time in a process: a file still has the process to itself while it runs.
 */
import { openSync, closeSync, readFileSync } from 'node:fs';
import { createRequire, syncBuiltinESMExports } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { compiledPath } from '../devstack/node-entry.js';

/** What the runner writes for the processes of one phase. */
export interface ShardQueue {
  /** The project's root: suites are named by their file's path from it. */
  root: string;
  /** The files, in the order they are taken. */
  files: string[];
}

type Registration = () => unknown;
type Suite = (name: string, fn: () => void) => Promise<void>;
type Registrar = ((...args: unknown[]) => unknown) & Record<string, unknown>;

const registrars = [
  'test',
  'it',
  'describe',
  'suite',
  'before',
  'after',
  'beforeEach',
  'afterEach',
];
const variants = ['skip', 'todo', 'only'];

/**
 * Makes `node:test`'s top-level functions collectable: while a file loads, its calls are kept and
 * replayed inside the file's suite; at any other time they go straight through. Only the named
 * exports can be replaced: a lint rule keeps test files to those (no default import).
 */
function collectTopLevelCalls(): {
  load: (file: string) => Promise<Registration[]>;
  /** The original `describe` and `test`, for the runner's own suites. */
  describe: Suite;
  test: Suite;
} {
  const nodeTest = createRequire(import.meta.url)('node:test') as Record<string, Registrar>;
  const describe = nodeTest.describe as Suite;
  const test = nodeTest.test as Suite;
  let collecting: Registration[] | undefined;
  const deferred =
    (real: (...args: unknown[]) => unknown) =>
    (...args: unknown[]) => {
      if (!collecting) return real(...args);
      collecting.push(() => real(...args));
      return undefined;
    };
  for (const name of registrars) {
    const real = nodeTest[name];
    if (typeof real !== 'function') continue;
    const wrapped = deferred(real) as Registrar;
    for (const variant of variants) {
      const realVariant = real[variant];
      if (typeof realVariant === 'function')
        wrapped[variant] = deferred(realVariant as (...args: unknown[]) => unknown);
    }
    nodeTest[name] = wrapped;
  }
  // ES modules importing `node:test` see the collecting functions from now on.
  syncBuiltinESMExports();
  return {
    describe,
    test,
    async load(file) {
      collecting = [];
      try {
        // The run's compiled JavaScript of the file when there is one (test-build.ts).
        await import(pathToFileURL(compiledPath(file) ?? file).href);
        return collecting;
      } finally {
        collecting = undefined;
      }
    },
  };
}

/** The index of the next file no process has taken yet, or undefined when all are taken. */
function claimNext(queueDir: string, count: number, from: number): number | undefined {
  for (let index = from; index < count; index++) {
    try {
      closeSync(openSync(path.join(queueDir, `taken-${index}`), 'wx'));
      return index;
    } catch (error) {
      // Another process took it first; any other failure ends this process, failing the phase.
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  }
  return undefined;
}

/** Runs files from the queue in `queueDir` until none is left. */
export async function runShard(queueDir: string): Promise<void> {
  const queue = JSON.parse(readFileSync(path.join(queueDir, 'queue.json'), 'utf8')) as ShardQueue;
  const { load, describe, test } = collectTopLevelCalls();
  let next: number | undefined = 0;
  while ((next = claimNext(queueDir, queue.files.length, next)) !== undefined) {
    const file = queue.files[next] as string;
    const name = path.relative(queue.root, file);
    let registrations: Registration[];
    try {
      registrations = await load(file);
    } catch (error) {
      await test(name, () => {
        throw error;
      });
      continue;
    }
    await describe(name, () => {
      for (const register of registrations) register();
    });
  }
}
