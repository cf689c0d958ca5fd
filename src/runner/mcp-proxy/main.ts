/**
 * The gate MCP proxy, a stdio MCP server for any MCP client (Claude Code / Cursor style
 * `mcpServers`, the Agent SDK's `mcpServers`): `gate-mcp-proxy --origin <name>` with
 * GATE_URL, GATE_SESSION_ID and GATE_SESSION_TOKEN in its environment. It serves the run's
 * frozen tools of that origin (register it under the origin's name) and asks the gate about
 * every call. It logs to stderr; stdout is the protocol.
 */
import { parseArgs } from 'node:util';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { GateClient } from '../gate-client.js';
import { GateMcpProxy } from './gate-mcp-proxy.js';
import { SandboxServer } from './sandbox-server.js';
import { GateError } from '../../domain/errors.js';

export class ProxyConfigError extends GateError {
  override name = 'ProxyConfigError';
  readonly code = 'invalid_proxy_config';
}

export interface ProxyConfig {
  gateUrl: string;
  sessionId: string;
  sessionToken: string;
  origin: string;
}

export function proxyConfig(argv: readonly string[], env: NodeJS.ProcessEnv): ProxyConfig {
  const { values } = parseArgs({
    args: [...argv],
    options: { origin: { type: 'string' } },
    strict: true,
  });
  const missing = ['GATE_URL', 'GATE_SESSION_ID', 'GATE_SESSION_TOKEN'].filter((key) => !env[key]);
  if (missing.length > 0) throw new ProxyConfigError(`set ${missing.join(', ')}`);
  if (!values.origin) {
    throw new ProxyConfigError('name the origin to serve: --origin <bundle or connection name>');
  }
  return {
    gateUrl: env.GATE_URL ?? '',
    sessionId: env.GATE_SESSION_ID ?? '',
    sessionToken: env.GATE_SESSION_TOKEN ?? '',
    origin: values.origin,
  };
}

const log = (message: string) => {
  process.stderr.write(`gate-mcp-proxy: ${message}\n`);
};

async function main(): Promise<void> {
  const config = proxyConfig(process.argv.slice(2), process.env);
  const client = new GateClient({
    baseUrl: config.gateUrl,
    sessionId: config.sessionId,
    sessionToken: config.sessionToken,
    waitS: 10,
  });
  const toolset = await client.toolset();
  const origin = toolset.origins.find((o) => o.name === config.origin);
  if (!origin) {
    const known = toolset.origins.map((o) => o.name).join(', ');
    throw new ProxyConfigError(`the run froze no tools of "${config.origin}" (it has: ${known})`);
  }
  const sandbox =
    origin.class === 'sandbox' && origin.command
      ? await SandboxServer.start(origin, { log })
      : undefined;
  const proxy = new GateMcpProxy({ client, origin, ...(sandbox && { sandbox }), log });
  const transport = new StdioServerTransport();
  transport.onclose = () => {
    void sandbox?.close().finally(() => process.exit(0));
  };
  process.stdin.on('end', () => {
    void proxy.mcp.close();
  });
  await proxy.mcp.connect(transport);
  log(`serving "${origin.name}" (${origin.class}) for session ${config.sessionId}`);
}

main().catch((err: unknown) => {
  log(err instanceof Error ? err.message : String(err));
  process.exit(1);
});
