import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  utimesSync,
} from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';
import { projectRoot } from '../../tools/devstack/stack-config.js';

const cacheDir = path.join(projectRoot, '.data', 'production');
/**
 * Production dependencies are kept per lock file for the user, like npm's own cache
 * (`$XDG_CACHE_HOME`, else `~/.cache`), so a new clone of an unchanged lock file does not install
 * them again; the build is per clone.
 */
const modulesCacheDir = path.join(
  process.env.XDG_CACHE_HOME || path.join(homedir(), '.cache'),
  'fluidbox-gate',
);

function digestOf(files: string[]): string {
  const hash = createHash('sha256');
  for (const file of files.sort())
    hash.update(file).update(readFileSync(path.join(projectRoot, file)));
  return hash.digest('hex').slice(0, 16);
}

function sourceFiles(dir: string): string[] {
  return readdirSync(path.join(projectRoot, dir), { withFileTypes: true }).flatMap((entry) => {
    const relative = path.join(dir, entry.name);
    return entry.isDirectory() ? sourceFiles(relative) : [relative];
  });
}

const run = (command: string, args: string[], cwd: string) =>
  execFileSync(command, args, { cwd, stdio: 'pipe', env: { ...process.env, NODE_OPTIONS: '' } });

/** Kept modules not used for this long are removed (another clone may still use a recent one). */
const unusedForMs = 14 * 24 * 3600 * 1000;

/**
 * `npm ci --omit=dev` of the lock file, kept per lock file and Node (its ABI, platform and
 * architecture). Install scripts are skipped and re2's addon is taken from the development tree:
 * the same version built for the same Node (its install compiles C++ for minutes, which proves
 * nothing more). Built in a folder of its own and renamed into place, so runs in several clones
 * at once never see half an install.
 */
function productionModules(): string {
  const node = `${process.versions.modules}-${process.platform}-${process.arch}`;
  const name = `production-modules-${digestOf(['package.json', 'package-lock.json'])}-${node}`;
  const dir = path.join(modulesCacheDir, name);
  const complete = path.join(dir, '.complete');
  mkdirSync(modulesCacheDir, { recursive: true });
  for (const old of readdirSync(modulesCacheDir).filter((n) => n.startsWith('production-'))) {
    const kept = path.join(modulesCacheDir, old);
    if (old !== name && Date.now() - statSync(kept).mtimeMs > unusedForMs)
      rmSync(kept, { recursive: true, force: true });
  }
  if (existsSync(complete)) {
    utimesSync(dir, new Date(), new Date()); // in use
    return dir;
  }
  const building = mkdtempSync(`${dir}.building-`);
  try {
    for (const file of ['package.json', 'package-lock.json']) {
      cpSync(path.join(projectRoot, file), path.join(building, file));
    }
    run(
      'npm',
      ['ci', '--omit=dev', '--ignore-scripts', '--prefer-offline', '--no-audit', '--no-fund'],
      building,
    );
    cpSync(
      path.join(projectRoot, 'node_modules/re2/build'),
      path.join(building, 'node_modules/re2/build'),
      { recursive: true },
    );
    cpSync(path.join(building, 'package.json'), path.join(building, '.complete'));
    try {
      renameSync(building, dir);
    } catch (error) {
      if (!existsSync(complete)) throw error; // else another run put the same install in place
    }
  } finally {
    rmSync(building, { recursive: true, force: true });
  }
  return dir;
}

/**
 * The gate as deployed: `npm run build`'s output (compiled without the type check, which
 * `npm test` runs on its own, and the workflow bundle made by the built code) beside production
 * dependencies only. Kept per source, so an unchanged tree is built once.
 */
export function productionBuild(): string {
  const modules = productionModules();
  const sources = [...sourceFiles('src'), 'tsconfig.json', 'tsconfig.build.json'];
  const dir = path.join(cacheDir, `build-${digestOf(sources)}-${path.basename(modules)}`);
  if (existsSync(path.join(dir, '.complete'))) return dir;
  // One build is kept: the one of the source as it is now.
  mkdirSync(cacheDir, { recursive: true });
  for (const old of readdirSync(cacheDir).filter((name) => name.startsWith('build-'))) {
    rmSync(path.join(cacheDir, old), { recursive: true, force: true });
  }
  const building = `${dir}.building`;
  mkdirSync(building, { recursive: true });
  const tsc = path.join(projectRoot, 'node_modules/typescript/bin/tsc');
  run(
    process.execPath,
    [tsc, '-p', 'tsconfig.build.json', '--noCheck', '--outDir', path.join(building, 'dist')],
    projectRoot,
  );
  for (const file of ['package.json', 'migrations']) {
    cpSync(path.join(projectRoot, file), path.join(building, file), { recursive: true });
  }
  // A link to the production tree, where Node resolves the build's packages.
  symlinkSync(path.join(modules, 'node_modules'), path.join(building, 'node_modules'), 'dir');
  run(process.execPath, ['dist/cli/bundle.js', 'dist/workflow-bundle.js'], building);
  cpSync(path.join(building, 'package.json'), path.join(building, '.complete'));
  renameSync(building, dir);
  return dir;
}
