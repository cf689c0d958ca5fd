/**
 * The Python MCP SDK (`mcp` on PyPI), the second client the tests drive `/mcp` with, in a virtual
 * environment under `.tools/`, at the versions and hashes `mcp-python-requirements.txt` pins
 * (see python-tool.ts); `test/mcp/remote_mcp_client.py` runs its steps against the endpoint.
 */
import path from 'node:path';
import { projectRoot } from '../devstack/stack-config.js';
import { ensurePythonTool, toolBinary, type PythonTool } from './python-tool.js';

const mcpPython: PythonTool = {
  name: 'mcp-python',
  requirements: 'tools/test/mcp-python-requirements.txt',
  check: ['python', '-c', 'import mcp.client.streamable_http, httpx2'],
};

/** The environment's python and the client script it runs. */
export function mcpPythonClientCommand(): [string, string] {
  return [toolBinary(mcpPython, 'python'), path.join(projectRoot, 'test/mcp/remote_mcp_client.py')];
}

export async function ensureMcpPython(): Promise<void> {
  await ensurePythonTool(mcpPython);
}
