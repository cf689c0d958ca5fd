import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import {
  CallToolResultSchema,
  ToolListChangedNotificationSchema,
  type CallToolResult,
} from '@modelcontextprotocol/sdk/types.js';
import type { ToolOrigin } from '../../domain/tools/session-toolset.js';
import { listServerTools } from '../../broker/tool-listing.js';
import { StdioProcessTransport } from '../../broker/stdio-process-transport.js';
import { diffPhotographs, photographMcpTools } from '../../domain/tools/mcp-tools.js';
import { GateError } from '../../domain/errors.js';

export class SandboxServerError extends GateError {
  override name = 'SandboxServerError';
  readonly code = 'sandbox_server_failed';
}

export interface SandboxServerOptions {
  /** Bound on starting the server and on each photograph of its tools. */
  timeoutMs?: number;
  /** Bound on one tool call forwarded to it. */
  callTimeoutMs?: number;
  log: (message: string) => void;
}

const limits = { maxTools: 1_000, maxPages: 50 };

// The proxy's own installation. Its MCP client starts it in the agent's working directory, which
// may be a stranger's repository: a server started there would be found there (a relative
// command, `npx` and its node_modules/.bin), so servers start here instead.
const serverDirectory = fileURLToPath(new URL('../../../', import.meta.url));

/**
 * A bundle's stdio MCP server, started by the proxy inside the sandbox with nothing of the
 * proxy's environment but PATH (it holds no credential, the session token included). It is
 * photographed with the digest function the gate used for the bundle when it starts and again
 * whenever it announces `notifications/tools/list_changed`; what it serves now is what the proxy
 * reports to the gate with each call.
 */
export class SandboxServer {
  readonly #client = new Client({ name: 'fluidbox-gate-proxy', version: '0.1.0' });
  readonly #transport: StdioProcessTransport;
  readonly #origin: ToolOrigin;
  readonly #options: Required<SandboxServerOptions>;
  #digests: Promise<ReadonlyMap<string, string>> = Promise.resolve(new Map());
  #failure: Error | undefined;
  #photographWaiting = false;

  private constructor(origin: ToolOrigin, options: SandboxServerOptions) {
    if (!origin.command) throw new SandboxServerError(`"${origin.name}" has no server command`);
    this.#origin = origin;
    this.#options = { timeoutMs: 20_000, callTimeoutMs: 10 * 60_000, ...options };
    this.#transport = new StdioProcessTransport({
      cmd: origin.command.cmd,
      args: origin.command.args,
      env: { PATH: process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin' },
      cwd: serverDirectory,
      // A long-lived server: its output is bounded per message, not in total.
      maxOutputBytes: Number.POSITIVE_INFINITY,
      maxMessageBytes: 16 * 1024 * 1024,
      maxStderrBytes: 64 * 1024,
      interrupted: 'while the proxy served it',
      onFailure: (error) => {
        this.#failure = error;
        options.log(`the server of "${origin.name}" failed: ${error.message}`);
      },
    });
  }

  static async start(origin: ToolOrigin, options: SandboxServerOptions): Promise<SandboxServer> {
    const server = new SandboxServer(origin, options);
    await server.#connect();
    return server;
  }

  async #connect(): Promise<void> {
    const timeout = this.#options.timeoutMs;
    try {
      await this.#client.connect(this.#transport, { timeout });
    } catch (err) {
      await this.#transport.kill();
      throw new SandboxServerError(
        `the server of "${this.#origin.name}" did not start: ${(err as Error).message}`,
      );
    }
    this.#client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      this.#rephotograph();
    });
    this.#digests = this.#photograph();
    const first = await this.#digests;
    const drift = diffPhotographs(
      this.#frozen(),
      [...first].map(([name, digest]) => ({ name, digest })),
    );
    this.#report('started', drift);
  }

  #frozen(): { name: string; digest: string }[] {
    return this.#origin.tools.filter((tool) => tool.mcp_name !== undefined);
  }

  // A photograph that cannot be taken leaves nothing served: every call reports withdrawn.
  async #photograph(): Promise<ReadonlyMap<string, string>> {
    try {
      const listed = await listServerTools(this.#client, {
        ...limits,
        signal: AbortSignal.timeout(this.#options.timeoutMs),
        timeoutMs: this.#options.timeoutMs,
      });
      const { tools } = photographMcpTools(this.#origin.name, listed);
      return new Map(tools.map((tool) => [tool.name, tool.digest]));
    } catch (err) {
      this.#options.log(
        `the tools of "${this.#origin.name}" could not be listed: ${(err as Error).message}`,
      );
      return new Map();
    }
  }

  /**
   * After a `list_changed`: one photograph at a time, each after the one before. A notice that
   * comes while the next is still waiting to start is covered by it, so a storm of notices costs
   * a photograph or two, not one each; every call still waits for one taken after the last notice.
   */
  #rephotograph(): void {
    if (this.#photographWaiting) return;
    this.#photographWaiting = true;
    const previous = this.#digests;
    this.#digests = previous.then(() => {
      this.#photographWaiting = false;
      return this.#photograph();
    });
    void Promise.all([previous, this.#digests]).then(([before, after]) => {
      const list = (m: ReadonlyMap<string, string>) =>
        [...m].map(([name, digest]) => ({ name, digest }));
      this.#report('announced tools/list_changed', diffPhotographs(list(before), list(after)));
    });
  }

  #report(event: string, drift: { added: string[]; withdrawn: string[]; changed: string[] }) {
    const parts = Object.entries(drift)
      .filter(([, names]) => names.length > 0)
      .map(([kind, names]) => `${kind} ${names.join(', ')}`);
    this.#options.log(
      `the server of "${this.#origin.name}" ${event}: ${parts.length > 0 ? parts.join('; ') : 'no change'}`,
    );
  }

  /**
   * The digest of a frozen tool as the server serves it now, null when it serves it no more.
   * A photograph under way (after list_changed) is waited for.
   */
  async observedDigest(name: string): Promise<string | null> {
    if (this.#failure) return null;
    return (await this.#digests).get(name) ?? null;
  }

  /** Forwards an allowed call; the server's answer is returned as it sent it. */
  async call(
    mcpName: string,
    args: Record<string, unknown>,
    signal: AbortSignal,
  ): Promise<CallToolResult> {
    if (this.#failure) throw new SandboxServerError(this.#failure.message);
    return this.#client.request(
      { method: 'tools/call', params: { name: mcpName, arguments: args } },
      CallToolResultSchema,
      { signal, timeout: this.#options.callTimeoutMs },
    );
  }

  async close(): Promise<void> {
    await this.#client.close().catch(() => undefined);
  }
}
