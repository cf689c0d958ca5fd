/**
 * A Python tool the tests run (Schemathesis, scim2-tester) in a virtual environment under
 * `.tools/`, installed from PyPI by the bootstrap at the versions and hashes its requirements file
 * pins. The environment is named after that file's digest: a changed pin installs anew.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { run, stillRuns } from '../devstack/child-process.js';
import { projectRoot } from '../devstack/stack-config.js';
import { toolsDir } from '../devstack/temporal-server.js';

export interface PythonTool {
  /** Names the environment and the messages. */
  name: string;
  /** The pinned requirements, relative to the project. */
  requirements: string;
  /** A program of the environment and its arguments that show the tool works once installed. */
  check: [program: string, ...args: string[]];
}

export function environmentDir(tool: PythonTool): string {
  const file = path.join(projectRoot, tool.requirements);
  const digest = createHash('sha256').update(readFileSync(file)).digest('hex');
  return path.join(toolsDir, `${tool.name}-${digest.slice(0, 12)}`);
}

/** A program of the tool's environment (installed or not). */
export function toolBinary(tool: PythonTool, program: string): string {
  return path.join(environmentDir(tool), 'bin', program);
}

export async function ensurePythonTool(tool: PythonTool): Promise<void> {
  const dir = environmentDir(tool);
  const [program, ...args] = tool.check;
  const binary = toolBinary(tool, program);
  // Written last: an install that stopped half-way is started over, not trusted.
  const stamp = path.join(dir, 'installed-from-requirements');
  const what = `${tool.name} in ${path.relative(projectRoot, dir)}`;
  if (existsSync(stamp) && (await stillRuns(binary, what, args))) return;
  rmSync(dir, { recursive: true, force: true });
  process.stderr.write(`installing ${tool.name} from PyPI into .tools/ ...\n`);
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
      path.join(projectRoot, tool.requirements),
    ]);
    await run(binary, args);
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    throw new Error(
      `could not install ${tool.name} (python3 >= 3.11 with venv, wheels for CPython 3.11 on x86-64 Linux): ${(err as Error).message}`,
    );
  }
  writeFileSync(stamp, '');
}
