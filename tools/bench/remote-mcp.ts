/**
 * The remote MCP endpoint against the REST route: the same allowed brokered call (a read of a
 * stub upstream MCP server) through `/mcp` (the MCP SDK's client, one session) and through
 * `PUT …/tool-calls/{id}` with `execute`, interleaved, and `tools/list` through `/mcp`.
 */
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import {
  CallToolRequestSchema,
  ListToolsRequestSchema,
  type CallToolResult,
} from '@modelcontextprotocol/sdk/types.js';
import { createDemoRun } from '../seed.js';
import { figures, ms, show, timed } from './figures.js';
import type { GateCalls } from './gate-calls.js';

const upstreamToken = `bench-${randomUUID()}`;

/** A stateless MCP server with one read tool that echoes its arguments. */
async function startStubUpstream() {
  const server = createServer((request, response) => {
    if (request.headers.authorization !== `Bearer ${upstreamToken}`) {
      response.writeHead(401).end();
      return;
    }
    const mcp = new McpServer({ name: 'bench-upstream', version: '1.0.0' });
    mcp.server.registerCapabilities({ tools: {} });
    mcp.server.setRequestHandler(ListToolsRequestSchema, () => ({
      tools: [
        {
          name: 'lookup',
          description: 'Looks a key up.',
          inputSchema: { type: 'object', properties: { key: { type: 'string' } } },
          annotations: { readOnlyHint: true },
        },
      ],
    }));
    mcp.server.setRequestHandler(CallToolRequestSchema, (call) => ({
      content: [{ type: 'text', text: JSON.stringify(call.params.arguments ?? {}) }],
    }));
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    response.on('close', () => void mcp.close());
    void mcp.connect(transport).then(() => transport.handleRequest(request, response));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    close: () =>
      new Promise<void>((resolve) =>
        server.close(() => {
          resolve();
        }),
      ),
  };
}

async function operatorPost(base: string, key: string, path: string, body: unknown) {
  const response = await fetch(base + path, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const json = (await response.json()) as Record<string, unknown>;
  if (response.status >= 300)
    throw new Error(`${path}: ${response.status} ${JSON.stringify(json)}`);
  return json;
}

export interface RemoteMcpFigures {
  rest: number[];
  mcp: number[];
  list: number[];
}

export async function benchRemoteMcp(
  calls: GateCalls,
  base: string,
  operatorKey: string,
  count: number,
): Promise<RemoteMcpFigures> {
  const upstream = await startStubUpstream();
  try {
    const connection = await operatorPost(base, operatorKey, '/v1/connections', {
      workspace: calls.demo.workspace,
      name: 'bench',
      kind: 'org',
      url: upstream.url,
      credential: { type: 'bearer', token: upstreamToken },
    });
    const run = await createDemoRun(base, operatorKey, calls.demo, {
      tools: { bundles: [calls.demo.bundle], connections: [{ id: connection.id }] },
    });
    const client = new Client({ name: 'bench', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL('/mcp', base), {
        requestInit: { headers: { authorization: `Bearer ${run.session_token}` } },
      }),
    );
    try {
      const tool = 'mcp__bench__lookup';
      const viaMcp = async (n: number) => {
        const result = (await client.callTool({
          name: tool,
          arguments: { key: `m${n}` },
        })) as CallToolResult;
        if (result.isError) throw new Error(`/mcp call failed: ${JSON.stringify(result)}`);
      };
      const viaRest = async (n: number) => {
        const answer = await calls.submit(run, {
          tool,
          arguments: { key: `r${n}` },
          execute: true,
        });
        if (answer.status !== 'decided') throw new Error(`REST call: ${answer.status}`);
      };
      // Warm both paths (connections, the run's first calls) before measuring.
      for (let n = 0; n < 5; n += 1) {
        await viaMcp(-n - 1);
        await viaRest(-n - 1);
      }
      const figuresOf: RemoteMcpFigures = { rest: [], mcp: [], list: [] };
      for (let n = 0; n < count; n += 1) {
        figuresOf.mcp.push(await timed(() => viaMcp(n)));
        figuresOf.rest.push(await timed(() => viaRest(n)));
        figuresOf.list.push(await timed(() => client.listTools()));
      }
      return figuresOf;
    } finally {
      await client.close();
    }
  } finally {
    await upstream.close();
  }
}

export function printRemoteMcp(measured: RemoteMcpFigures, count: number): void {
  process.stdout.write(
    `\nRemote MCP, an allowed brokered read, ${count} of each interleaved (stub upstream):\n`,
  );
  const rest = figures(measured.rest);
  const mcp = figures(measured.mcp);
  show('REST: PUT …/tool-calls/{id} with execute', rest);
  show('/mcp: tools/call (MCP SDK client, one session)', mcp);
  show('/mcp: tools/list', figures(measured.list));
  process.stdout.write(`  /mcp over REST, p50: ${ms(mcp.p50 - rest.p50)}\n`);
}
