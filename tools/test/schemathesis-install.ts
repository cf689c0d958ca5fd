/**
 * Schemathesis (the property-based API tester, a Python tool) in a virtual environment under
 * `.tools/`, at the versions and hashes `schemathesis-requirements.txt` pins (see python-tool.ts).
 */
import path from 'node:path';
import { environmentDir, ensurePythonTool, toolBinary, type PythonTool } from './python-tool.js';

const schemathesis: PythonTool = {
  name: 'schemathesis',
  requirements: 'tools/test/schemathesis-requirements.txt',
  check: ['schemathesis', '--version'],
};

/** The `schemathesis` command of the pinned environment (installed or not). */
export function schemathesisPath(): string {
  return toolBinary(schemathesis, 'schemathesis');
}

/** What a run needs in its environment: Hypothesis keeps its caches in ours, not in the tree. */
export function schemathesisVariables(): Record<string, string> {
  return { HYPOTHESIS_STORAGE_DIRECTORY: path.join(environmentDir(schemathesis), 'hypothesis') };
}

export async function ensureSchemathesis(): Promise<string> {
  await ensurePythonTool(schemathesis);
  return schemathesisPath();
}
