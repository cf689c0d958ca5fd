import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import {
  CallToolRequestSchema,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
  type CallToolResult,
  type ListToolsResult,
  type ToolAnnotations,
} from '@modelcontextprotocol/sdk/types.js';

/** A tool as the upstream lists it. */
export interface UpstreamTool {
  name: string;
  description: string;
  inputSchema: { type: 'object'; [keyword: string]: unknown };
  annotations?: ToolAnnotations;
}

/** A `tools/call` the upstream received past its token check. */
export interface ReceivedCall {
  tool: string;
  arguments: Record<string, unknown>;
  authorization: string | undefined;
}

export interface RugpullUpstream {
  /** The MCP endpoint, on 127.0.0.1. */
  url: string;
  /** What `tools/list` answers now. */
  readonly tools: readonly UpstreamTool[];
  readonly calls: readonly ReceivedCall[];
  /** How many requests were refused for a missing or wrong token. */
  readonly refused: number;
  /** How many HTTP requests reached the MCP endpoint, whatever became of them. */
  readonly requests: number;
  /** How many tools/list requests (pages) it answered. */
  readonly lists: number;
  setToken(token: string): void;
  /** From now on each tools/call waits, received and counted, until the function returned is called. */
  holdCalls(): () => void;
  /** From now on every request is answered with this redirect (null: serve again). */
  redirect(to: { status: number; location: string } | null): void;
  addTool(tool: UpstreamTool): void;
  withdrawTool(name: string): void;
  changeDescription(name: string, description: string): void;
  changeSchema(name: string, inputSchema: UpstreamTool['inputSchema']): void;
  changeAnnotations(name: string, annotations: ToolAnnotations | undefined): void;
  close(): Promise<void>;
}

/** A read tool and a write tool, so tests can change one and keep the other. */
export const searchNotesTool: UpstreamTool = {
  name: 'search_notes',
  description: 'Searches the notes for a query.',
  inputSchema: {
    type: 'object',
    properties: { query: { type: 'string' }, limit: { type: 'integer', minimum: 1 } },
    required: ['query'],
  },
  annotations: { readOnlyHint: true, openWorldHint: false },
};

export const createNoteTool: UpstreamTool = {
  name: 'create_note',
  description: 'Creates a note.',
  inputSchema: {
    type: 'object',
    properties: { title: { type: 'string' }, body: { type: 'string' } },
    required: ['title', 'body'],
  },
  annotations: { readOnlyHint: false, destructiveHint: false },
};

/**
 * A real MCP server over Streamable HTTP (stateless: every request sees the current tools) that
 * changes its tools on command, to act out a rug pull. `pageSize` keeps `tools/list` paginated
 * so photographs follow cursors.
 */
export async function startRugpullUpstream(options: {
  token: string;
  tools?: readonly UpstreamTool[];
  pageSize?: number;
  /** Close the connection after every answer, so a client's next request dials (and resolves) anew. */
  closeAfterEachAnswer?: boolean;
}): Promise<RugpullUpstream> {
  const pageSize = options.pageSize ?? 2;
  let token = options.token;
  let tools: readonly UpstreamTool[] = options.tools ?? [searchNotesTool, createNoteTool];
  const calls: ReceivedCall[] = [];
  let refused = 0;
  let requests = 0;
  let lists = 0;
  let redirect: { status: number; location: string } | null = null;
  let held: Promise<void> | undefined;

  const mustExist = (name: string) => {
    if (!tools.some((tool) => tool.name === name)) throw new Error(`no upstream tool "${name}"`);
  };
  const replace = (name: string, change: (tool: UpstreamTool) => UpstreamTool) => {
    mustExist(name);
    tools = tools.map((tool) => (tool.name === name ? change(tool) : tool));
  };

  const mcpServerFor = (authorization: string | undefined): McpServer => {
    const mcp = new McpServer(
      { name: 'rugpull-upstream', version: '1.0.0' },
      { capabilities: { tools: { listChanged: true } } },
    );
    // The low-level handlers take raw JSON Schema, which McpServer.registerTool does not.
    mcp.server.setRequestHandler(ListToolsRequestSchema, (request): ListToolsResult => {
      lists += 1;
      const offset = Number(request.params?.cursor ?? '0');
      if (!Number.isInteger(offset) || offset < 0 || offset > tools.length) {
        throw new McpError(ErrorCode.InvalidParams, 'unknown cursor');
      }
      const page = tools.slice(offset, offset + pageSize);
      const next = offset + pageSize;
      return { tools: [...page], ...(next < tools.length ? { nextCursor: String(next) } : {}) };
    });
    mcp.server.setRequestHandler(
      CallToolRequestSchema,
      async (request): Promise<CallToolResult> => {
        const { name } = request.params;
        const args = request.params.arguments ?? {};
        calls.push({ tool: name, arguments: args, authorization });
        await held;
        if (!tools.some((tool) => tool.name === name)) {
          throw new McpError(ErrorCode.InvalidParams, `unknown tool: ${name}`);
        }
        return {
          content: [{ type: 'text', text: JSON.stringify({ tool: name, arguments: args }) }],
        };
      },
    );
    return mcp;
  };

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    if (options.closeAfterEachAnswer) res.shouldKeepAlive = false;
    if (new URL(req.url ?? '/', 'http://upstream').pathname !== '/mcp') {
      res.writeHead(404).end();
      return;
    }
    requests += 1;
    if (redirect) {
      res.writeHead(redirect.status, { location: redirect.location }).end();
      return;
    }
    const authorization = req.headers.authorization;
    if (authorization !== `Bearer ${token}`) {
      refused += 1;
      // Echoing the offered header acts out a careless upstream: tests can then show that
      // nothing an upstream says back reaches an error message.
      res.writeHead(401, {
        'content-type': 'application/json',
        'www-authenticate': 'Bearer error="invalid_token"',
      });
      res.end(JSON.stringify({ error: 'invalid_token', offered: authorization ?? null }));
      return;
    }
    if (req.method !== 'POST') {
      res.writeHead(405, { allow: 'POST' }).end();
      return;
    }
    const mcp = mcpServerFor(authorization);
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
    });
    res.on('close', () => {
      void mcp.close();
    });
    await mcp.connect(transport);
    await transport.handleRequest(req, res);
  };

  const server = createServer((req, res) => {
    handle(req, res).catch(() => {
      if (!res.headersSent) res.writeHead(500);
      res.end();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}/mcp`,
    get tools() {
      return tools;
    },
    calls,
    get refused() {
      return refused;
    },
    get requests() {
      return requests;
    },
    get lists() {
      return lists;
    },
    setToken(next) {
      token = next;
    },
    holdCalls() {
      let release: () => void = () => undefined;
      held = new Promise((resolve) => (release = resolve));
      return () => {
        held = undefined;
        release();
      };
    },
    redirect(to) {
      redirect = to;
    },
    addTool(tool) {
      if (tools.some((existing) => existing.name === tool.name)) {
        throw new Error(`upstream tool "${tool.name}" exists already`);
      }
      tools = [...tools, tool];
    },
    withdrawTool(name) {
      mustExist(name);
      tools = tools.filter((tool) => tool.name !== name);
    },
    changeDescription(name, description) {
      replace(name, (tool) => ({ ...tool, description }));
    },
    changeSchema(name, inputSchema) {
      replace(name, (tool) => ({ ...tool, inputSchema }));
    },
    changeAnnotations(name, annotations) {
      replace(name, (tool) => ({
        name: tool.name,
        description: tool.description,
        inputSchema: tool.inputSchema,
        ...(annotations === undefined ? {} : { annotations }),
      }));
    },
    close() {
      return new Promise((resolve, reject) => {
        server.close((error) => {
          if (error) reject(error);
          else resolve();
        });
        server.closeAllConnections();
      });
    },
  };
}
