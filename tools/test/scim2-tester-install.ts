/**
 * scim2-tester (a SCIM 2.0 conformance checker, a Python library) in a virtual environment under
 * `.tools/`, at the versions and hashes `scim2-tester-requirements.txt` pins (see
 * python-tool.ts); `scim-check.py` runs its checks against a server and prints what they found.
 */
import path from 'node:path';
import { projectRoot } from '../devstack/stack-config.js';
import { ensurePythonTool, toolBinary, type PythonTool } from './python-tool.js';

const scim2Tester: PythonTool = {
  name: 'scim2-tester',
  requirements: 'tools/test/scim2-tester-requirements.txt',
  check: ['python', '-c', 'import scim2_tester, scim2_client.engines.httpx2'],
};

/** The environment's python and the checker script it runs. */
export function scimCheckCommand(): [string, string] {
  return [toolBinary(scim2Tester, 'python'), path.join(projectRoot, 'tools/test/scim-check.py')];
}

export async function ensureScim2Tester(): Promise<void> {
  await ensurePythonTool(scim2Tester);
}
