/**
 * Schemathesis (the property-based API tester, a Python tool) in a virtual environment under
 * `.tools/`, installed from PyPI by the bootstrap at the versions and hashes the requirements file
 * pins. The environment is named after that file's digest: a changed pin installs anew.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { run, stillRuns } from '../devstack/child-process.js';
import { projectRoot } from '../devstack/stack-config.js';
import { toolsDir } from '../devstack/temporal-server.js';

const requirementsFile = path.join(projectRoot, 'tools/test/schemathesis-requirements.txt');

function environmentDir(): string {
  const digest = createHash('sha256').update(readFileSync(requirementsFile)).digest('hex');
  return path.join(toolsDir, `schemathesis-${digest.slice(0, 12)}`);
}

/** The `schemathesis` command of the pinned environment (installed or not). */
export function schemathesisPath(): string {
  return path.join(environmentDir(), 'bin', 'schemathesis');
}

/** What a run needs in its environment: Hypothesis keeps its caches in ours, not in the tree. */
export function schemathesisVariables(): Record<string, string> {
  return { HYPOTHESIS_STORAGE_DIRECTORY: path.join(environmentDir(), 'hypothesis') };
}

export async function ensureSchemathesis(): Promise<string> {
  const dir = environmentDir();
  const binary = schemathesisPath();
  // Written last: an install that stopped half-way is started over, not trusted.
  const stamp = path.join(dir, 'installed-from-requirements');
  const what = `schemathesis in ${path.relative(projectRoot, dir)}`;
  if (existsSync(stamp) && (await stillRuns(binary, what))) return binary;
  rmSync(dir, { recursive: true, force: true });
  process.stderr.write('installing schemathesis from PyPI into .tools/ ...\n');
  try {
    await run('python3', ['-m', 'venv', dir]);
    await run(path.join(dir, 'bin', 'pip'), [
      'install',
      '--quiet',
      '--disable-pip-version-check',
      '--require-hashes',
      '--only-binary',
      ':all:',
      '--no-deps',
      '--requirement',
      requirementsFile,
    ]);
    await run(binary, ['--version']);
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    throw new Error(
      `could not install schemathesis (python3 >= 3.11 with venv, wheels for CPython 3.11 on x86-64 Linux): ${(err as Error).message}`,
    );
  }
  writeFileSync(stamp, '');
  return binary;
}
