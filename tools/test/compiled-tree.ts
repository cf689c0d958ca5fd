/**
 * The TypeScript of the processes tests start (workers, the MCP proxy, agents, helpers) compiled
 * once per run to JavaScript, so each starts on plain Node instead of paying the TypeScript loader
 * (about half a second of CPU a start; the suite starts dozens).
 *
 * The JavaScript sits in a folder of `.data/`, mirroring the tree (`src/`, `tools/`,
 * `examples/`, `test/support/`), so relative imports resolve to each other and packages to the
 * project's `node_modules`. Every
 * module keeps its source's `import.meta.url`: paths computed from it (the project's root,
 * migrations, fixtures, the workflow code a worker bundles) are the source tree's, and a stack
 * trace points at the TypeScript through an inline source map.
 */
import { chmodSync, copyFileSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { build, type Plugin } from 'esbuild';
import { isRunning } from '../devstack/child-process.js';
import { projectRoot } from '../devstack/stack-config.js';

/** The folders compiled, from the project's root. */
const compiledFolders = ['src', 'tools', 'examples', 'test/support'];

function filesUnder(dir: string, keep: (file: string) => boolean): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return filesUnder(full, keep);
    return keep(full) ? [full] : [];
  });
}

/**
 * An empty folder for run `pid`'s compiled tree: in `.data/` inside the project, where packages
 * resolve, and readable by others (the `nobody` that runs stdio photographs). Trees of runs no
 * longer running (interrupted) are removed.
 */
export function freshCompiledTree(pid: number): string {
  const data = path.join(projectRoot, '.data');
  mkdirSync(data, { recursive: true });
  for (const name of readdirSync(data)) {
    const owner = /^test-build-(\d+)$/.exec(name)?.[1];
    if (owner && (Number(owner) === pid || !isRunning(Number(owner))))
      rmSync(path.join(data, name), { recursive: true, force: true });
  }
  const tree = path.join(data, `test-build-${pid}`);
  mkdirSync(tree);
  chmodSync(tree, 0o755);
  return tree;
}

/**
 * Gives each module its source file's URL as `import.meta.url`. The replacement is textual, in
 * comments and strings too: harmless there, except inside a double-quoted string, where it
 * fails the compile loudly.
 */
const sourceUrls: Plugin = {
  name: 'source-urls',
  setup(compiler) {
    compiler.onLoad({ filter: /\.ts$/ }, (args) => ({
      contents: readFileSync(args.path, 'utf8').replaceAll(
        'import.meta.url',
        JSON.stringify(pathToFileURL(args.path).href),
      ),
      loader: 'ts',
    }));
  },
};

/** Compiles the tree into `outDir`, with the JSON files modules import copied beside. */
export async function compileForTests(outDir: string): Promise<void> {
  const roots = compiledFolders.map((folder) => path.join(projectRoot, folder));
  const isSource = (file: string) => file.endsWith('.ts') && !file.endsWith('.d.ts');
  await build({
    entryPoints: roots.flatMap((root) => filesUnder(root, isSource)),
    outdir: outDir,
    outbase: projectRoot,
    format: 'esm',
    platform: 'node',
    target: 'node20.19',
    sourcemap: 'inline',
    sourcesContent: false,
    logLevel: 'error',
    plugins: [sourceUrls],
  });
  for (const file of filesUnder(path.join(projectRoot, 'src'), (f) => f.endsWith('.json'))) {
    const copy = path.join(outDir, path.relative(projectRoot, file));
    mkdirSync(path.dirname(copy), { recursive: true });
    copyFileSync(file, copy);
  }
}
