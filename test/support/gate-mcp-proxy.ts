import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { compiledEntryArgs } from '../../tools/devstack/node-entry.js';

export const proxyBin = fileURLToPath(new URL('../../bin/gate-mcp-proxy.js', import.meta.url));
/**
 * How the proxy is started: the bin, as an MCP client starts it, or in a run with a compiled
 * tree its compiled entry (what the bin runs through tsx); `bin` asks for the bin itself, which
 * the Agent SDK's tests also start.
 */
const proxyArgs = compiledEntryArgs(
  fileURLToPath(new URL('../../src/runner/mcp-proxy/main.ts', import.meta.url)),
) ?? [proxyBin];

export interface ConnectedProxy {
  client: Client;
  pid: number;
  /** Everything the proxy wrote to stderr so far. */
  logs: () => string;
  /** Resolves when a line of the proxy's log matches. */
  logged: (pattern: RegExp, timeoutMs?: number) => Promise<void>;
  close: () => Promise<void>;
}

/** Starts the gate MCP proxy for one origin of a run and connects the MCP SDK's client to it. */
export async function connectProxy(
  gateUrl: string,
  run: { session_id: string; session_token: string },
  origin: string,
  options: { cwd?: string; bin?: boolean } = {},
): Promise<ConnectedProxy> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [...(options.bin ? [proxyBin] : proxyArgs), '--origin', origin],
    // Where an MCP client starts it: the agent's working directory.
    ...(options.cwd && { cwd: options.cwd }),
    env: {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      GATE_URL: gateUrl,
      GATE_SESSION_ID: run.session_id,
      GATE_SESSION_TOKEN: run.session_token,
    },
    stderr: 'pipe',
  });
  let logs = '';
  const waiters: { pattern: RegExp; resolve: () => void }[] = [];
  transport.stderr?.on('data', (chunk: Buffer) => {
    logs += chunk.toString('utf8');
    for (const waiter of [...waiters]) {
      if (waiter.pattern.test(logs)) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve();
      }
    }
  });
  const client = new Client({ name: 'proxy-test', version: '1.0.0' });
  await client.connect(transport);
  const pid = transport.pid;
  if (pid === null) throw new Error('the proxy did not start');
  return {
    client,
    pid,
    logs: () => logs,
    logged: (pattern, timeoutMs = 10_000) =>
      pattern.test(logs)
        ? Promise.resolve()
        : new Promise((resolve, reject) => {
            const timer = setTimeout(() => {
              reject(new Error(`the proxy never logged ${String(pattern)}:\n${logs}`));
            }, timeoutMs);
            waiters.push({
              pattern,
              resolve: () => {
                clearTimeout(timer);
                resolve();
              },
            });
          }),
    close: () => client.close(),
  };
}
