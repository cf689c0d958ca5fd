import { chown, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import {
  StreamableHTTPClientTransport,
  StreamableHTTPError,
} from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { FetchLike, Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  CallToolResultSchema,
  ListToolsResultSchema,
  McpError,
  type CallToolResult,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import { PhotographError } from './photograph-error.js';
import { StdioProcessTransport } from './stdio-process-transport.js';
import { photographUser, type ProcessIdentity } from './unprivileged-user.js';

export { PhotographError, type PhotographErrorCode } from './photograph-error.js';

/** One entry of a server's `tools/list`, exactly as the SDK parsed it. */
export type ListedTool = Tool;

export interface BearerCredential {
  type: 'bearer';
  token: string;
}

export interface PhotographLimits {
  /** Bound on the whole photograph: connecting, every page, and closing. */
  timeoutMs?: number;
  maxTools?: number;
  maxPages?: number;
}

export interface HttpPhotographOptions extends PhotographLimits {
  /** Bound on the body of any one HTTP response. */
  maxResponseBytes?: number;
}

export interface StdioPhotographOptions extends PhotographLimits {
  /** Bound on everything the server writes to stdout. */
  maxOutputBytes?: number;
  maxStderrBytes?: number;
  /** Added to the child's environment, which otherwise holds only PATH. */
  env?: Record<string, string>;
}

const defaults = {
  timeoutMs: 10_000,
  maxTools: 1_000,
  maxPages: 50,
  maxResponseBytes: 8 * 1024 * 1024,
  maxOutputBytes: 8 * 1024 * 1024,
  maxStderrBytes: 64 * 1024,
};

// `??` rather than a spread, so a caller passing `{ timeoutMs: undefined }` still gets a bound.
function withDefaults(options: HttpPhotographOptions & StdioPhotographOptions) {
  return {
    timeoutMs: options.timeoutMs ?? defaults.timeoutMs,
    maxTools: options.maxTools ?? defaults.maxTools,
    maxPages: options.maxPages ?? defaults.maxPages,
    maxResponseBytes: options.maxResponseBytes ?? defaults.maxResponseBytes,
    maxOutputBytes: options.maxOutputBytes ?? defaults.maxOutputBytes,
    maxStderrBytes: options.maxStderrBytes ?? defaults.maxStderrBytes,
  };
}

const clientInfo = { name: 'fluidbox-gate', version: '0.1.0' };

/**
 * Lists the tools of an MCP server over Streamable HTTP with a bearer token, following
 * pagination, within a time bound. Throws `PhotographError`; its message never holds the token.
 */
export async function photographHttp(
  url: string,
  credential: BearerCredential,
  options: HttpPhotographOptions = {},
): Promise<ListedTool[]> {
  const limits = withDefaults(options);
  return withHttpClient(
    url,
    credential,
    limits,
    'no complete tools/list',
    (client, transport, deadline) => listAllTools(client, transport, deadline, limits),
  );
}

export interface CallToolOptions {
  timeoutMs?: number;
  maxResponseBytes?: number;
}

/** What a confirmed call came to: the server's result, or the reason it was never sent. */
export type ConfirmedCall<R> =
  { called: true; result: CallToolResult } | { called: false; refusal: R };

/**
 * Calls one tool on an MCP server over Streamable HTTP with a bearer token, within a time
 * bound and a bound on the answer's size. On the same authenticated session, the server's
 * `tools/list` is read first and handed to `confirm`: anything it returns refuses the call, which
 * is then never sent. The result is returned as the server sent it.
 */
export async function callToolHttp<R>(
  url: string,
  credential: BearerCredential,
  tool: { name: string; arguments: Record<string, unknown> },
  confirm: (listed: ListedTool[]) => R | undefined,
  options: CallToolOptions = {},
): Promise<ConfirmedCall<R>> {
  const limits = withDefaults({
    timeoutMs: options.timeoutMs ?? 30_000,
    maxResponseBytes: options.maxResponseBytes,
  });
  return withHttpClient(
    url,
    credential,
    limits,
    'no answer to tools/call',
    async (client, transport, deadline): Promise<ConfirmedCall<R>> => {
      const listed = await listAllTools(client, transport, deadline, limits);
      const refusal = confirm(listed);
      if (refusal !== undefined) return { called: false, refusal };
      const result = await client.request(
        { method: 'tools/call', params: { name: tool.name, arguments: tool.arguments } },
        CallToolResultSchema,
        { signal: deadline.signal },
      );
      return { called: true, result };
    },
  );
}

/** One bounded exchange with an HTTP MCP server: connect, `work`, end the session, close. */
async function withHttpClient<T>(
  url: string,
  credential: BearerCredential,
  limits: ReturnType<typeof withDefaults>,
  what: string,
  work: (
    client: Client,
    transport: StreamableHTTPClientTransport,
    deadline: Deadline,
  ) => Promise<T>,
): Promise<T> {
  const target = parseHttpUrl(url);
  // A header value with control characters makes fetch throw a message quoting the value.
  if (!/^[\x21-\x7e]+$/.test(credential.token)) {
    throw new PhotographError(
      'invalid_request',
      'the bearer token must be non-empty printable ASCII without spaces',
    );
  }
  const redact = redactor([credential.token]);
  const deadline = new Deadline(limits.timeoutMs, what);
  const transport = new StreamableHTTPClientTransport(target, {
    requestInit: { headers: { Authorization: `Bearer ${credential.token}` } },
    fetch: boundedFetch(deadline, limits.maxResponseBytes),
    // One short exchange; resuming a broken stream would only outlive the bound.
    reconnectionOptions: {
      maxRetries: 0,
      initialReconnectionDelay: 0,
      maxReconnectionDelay: 0,
      reconnectionDelayGrowFactor: 1,
    },
  });
  const client = new Client(clientInfo);
  try {
    const result = await work(client, transport, deadline);
    await transport.terminateSession().catch(() => undefined);
    return result;
  } catch (error) {
    throw deadline.failure ?? httpFailure(error, target, redact);
  } finally {
    deadline.clear();
    await client.close().catch(() => undefined);
  }
}

/**
 * Starts a stdio MCP server, lists its tools and stops it, within a time bound and with bounded
 * output. The child sees only PATH and `options.env`, starts in a fresh empty directory, and runs
 * as `nobody` when this process is root (see `photographUser`): a server is a stranger's code,
 * and this process holds the sealing key. Throws `PhotographError` carrying the server's stderr
 * (capped, with the values of `options.env` redacted).
 */
export async function photographStdio(
  command: { cmd: string; args: string[] },
  options: StdioPhotographOptions = {},
): Promise<ListedTool[]> {
  if (command.cmd === '') throw new PhotographError('invalid_request', 'the command is empty');
  const user = photographUser();
  const workdir = await mkdtemp(join(tmpdir(), 'gate-photograph-'));
  try {
    if (user) await chown(workdir, user.uid, user.gid);
    // A command given by a relative path is the operator's, found from here as before; only the
    // server's own working directory is the fresh one.
    const cmd = command.cmd.includes('/') ? resolve(command.cmd) : command.cmd;
    return await photographStdioIn({ ...command, cmd }, options, { cwd: workdir, user });
  } finally {
    await rm(workdir, { recursive: true, force: true });
  }
}

async function photographStdioIn(
  command: { cmd: string; args: string[] },
  options: StdioPhotographOptions,
  where: { cwd: string; user: ProcessIdentity | undefined },
): Promise<ListedTool[]> {
  const limits = withDefaults(options);
  // Short values such as "1" or "true" are not secrets, and hiding them would garble messages.
  const redact = redactor(Object.values(options.env ?? {}).filter((value) => value.length >= 6));
  const deadline = new Deadline(limits.timeoutMs);
  const transport = new StdioProcessTransport({
    cmd: command.cmd,
    args: command.args,
    env: { PATH: process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin', ...options.env },
    cwd: where.cwd,
    user: where.user,
    maxOutputBytes: limits.maxOutputBytes,
    maxStderrBytes: limits.maxStderrBytes,
    onFailure: (error) => {
      deadline.fail(error);
    },
  });
  const client = new Client(clientInfo);
  try {
    return await listAllTools(client, transport, deadline, limits);
  } catch (error) {
    await transport.kill();
    const failure = deadline.failure ?? protocolFailure('the server', error, redact);
    failure.stderr = redact(transport.stderr, Infinity);
    throw failure;
  } finally {
    deadline.clear();
    // Closing the client closes the transport: a polite stop, or nothing after a kill.
    await client.close().catch(() => undefined);
  }
}

/** One clock for the whole photograph; the first failure of any kind aborts everything. */
class Deadline {
  readonly #controller = new AbortController();
  readonly #timer: NodeJS.Timeout;
  failure: PhotographError | undefined;

  constructor(
    readonly ms: number,
    what = 'no complete tools/list',
  ) {
    this.#timer = setTimeout(() => {
      this.fail(new PhotographError('timeout', `${what} within ${ms} ms`));
    }, ms);
  }

  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  fail(error: PhotographError): void {
    if (this.failure) return;
    this.failure = error;
    this.#controller.abort(error);
  }

  clear(): void {
    clearTimeout(this.#timer);
  }
}

async function listAllTools(
  client: Client,
  transport: Transport,
  deadline: Deadline,
  limits: Required<PhotographLimits>,
): Promise<ListedTool[]> {
  const requestOptions = { signal: deadline.signal, timeout: deadline.ms };
  await client.connect(transport, requestOptions);
  return listServerTools(client, { ...limits, signal: deadline.signal, timeoutMs: deadline.ms });
}

/**
 * Lists every tool of a connected server, following pagination within the given bounds. Throws
 * `PhotographError` for a list that is too long or cursors that loop.
 */
export async function listServerTools(
  client: Client,
  options: { signal: AbortSignal; timeoutMs: number; maxTools: number; maxPages: number },
): Promise<ListedTool[]> {
  // Client.listTools would compile every output schema with ajv; these schemas are untrusted
  // and are guarded elsewhere before anything compiles them, so the raw request is used.
  const requestOptions = { signal: options.signal, timeout: options.timeoutMs };
  const tools: ListedTool[] = [];
  const cursors = new Set<string>();
  let cursor: string | undefined;
  for (let page = 1; ; page++) {
    const result = await client.request(
      { method: 'tools/list', params: cursor === undefined ? {} : { cursor } },
      ListToolsResultSchema,
      requestOptions,
    );
    tools.push(...result.tools);
    if (tools.length > options.maxTools) {
      throw new PhotographError(
        'too_large',
        `the server lists more than ${options.maxTools} tools`,
      );
    }
    if (result.nextCursor === undefined) return tools;
    if (page >= options.maxPages) {
      throw new PhotographError(
        'too_large',
        `the server's tool list runs past ${options.maxPages} pages`,
      );
    }
    if (cursors.has(result.nextCursor)) {
      throw new PhotographError('protocol', 'the server repeated a pagination cursor');
    }
    cursors.add(result.nextCursor);
    cursor = result.nextCursor;
  }
}

function parseHttpUrl(url: string): URL {
  let target: URL;
  try {
    target = new URL(url);
  } catch {
    throw new PhotographError('invalid_request', 'the URL is not a valid absolute URL');
  }
  if (target.protocol !== 'http:' && target.protocol !== 'https:') {
    throw new PhotographError('invalid_request', 'the URL must be http or https');
  }
  if (target.username !== '' || target.password !== '') {
    throw new PhotographError(
      'invalid_request',
      'the URL must not carry credentials; give them as the credential',
    );
  }
  return target;
}

const nullBodyStatuses = new Set([101, 103, 204, 205, 304]);

/**
 * fetch bounded by the deadline, with every response body cut off past `maxBytes`. Redirects are
 * never followed: the credential was given for this URL, and a server that sends it elsewhere
 * (another host, or a path the operator never registered) is a failure, not a new address.
 */
function boundedFetch(deadline: Deadline, maxBytes: number): FetchLike {
  return async (url, init) => {
    const signal = init?.signal ? AbortSignal.any([init.signal, deadline.signal]) : deadline.signal;
    const response = await fetch(url, { ...init, signal, redirect: 'manual' });
    if (response.status >= 300 && response.status < 400) {
      await response.body?.cancel().catch(() => undefined);
      const target = new URL(url);
      const error = new PhotographError(
        'redirected',
        `${target.protocol}//${target.host} answered HTTP ${response.status} (a redirect); redirects are never followed: register the server's own MCP endpoint`,
      );
      deadline.fail(error);
      throw error;
    }
    if (!response.body || nullBodyStatuses.has(response.status)) return response;
    let seen = 0;
    const counted = response.body.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, controller) {
          seen += chunk.byteLength;
          if (seen > maxBytes) {
            const error = new PhotographError(
              'too_large',
              `a response from the server was larger than ${maxBytes} bytes`,
            );
            deadline.fail(error);
            controller.error(error);
            return;
          }
          controller.enqueue(chunk);
        },
      }),
    );
    return new Response(counted, {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  };
}

function httpFailure(
  error: unknown,
  target: URL,
  redact: (text: string) => string,
): PhotographError {
  const where = `${target.protocol}//${target.host}`;
  if (error instanceof PhotographError) return error;
  if (error instanceof UnauthorizedError) {
    return new PhotographError('unauthorized', `${where} refused the credential`);
  }
  if (error instanceof StreamableHTTPError && error.code !== undefined && error.code > 0) {
    if (error.code === 401 || error.code === 403) {
      return new PhotographError(
        'unauthorized',
        `${where} refused the credential (HTTP ${error.code})`,
      );
    }
    return new PhotographError(
      'protocol',
      `${where} answered HTTP ${error.code}; is the URL its MCP endpoint?`,
    );
  }
  const networkCode = networkErrorCode(error);
  if (networkCode !== undefined) {
    return new PhotographError('unreachable', `could not connect to ${where} (${networkCode})`);
  }
  return protocolFailure(where, error, redact);
}

function protocolFailure(
  who: string,
  error: unknown,
  redact: (text: string) => string,
): PhotographError {
  if (error instanceof PhotographError) return error;
  const detail = error instanceof Error ? error.message : String(error);
  const kind = error instanceof McpError ? 'answered with an error' : 'did not answer as MCP';
  return new PhotographError('protocol', `${who} ${kind}: ${redact(detail)}`);
}

// fetch reports a failed connection as TypeError("fetch failed") with the system error as cause.
function networkErrorCode(error: unknown): string | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && current instanceof Error; depth++) {
    const code = (current as NodeJS.ErrnoException).code;
    if (typeof code === 'string' && /^(E[A-Z]+|UND_ERR_[A-Z_]+)$/.test(code)) return code;
    current = current.cause;
  }
  return error instanceof TypeError && error.message === 'fetch failed'
    ? 'fetch failed'
    : undefined;
}

/** Replaces every secret in a text, then caps its length so no secret is cut in half. */
function redactor(secrets: readonly string[]): (text: string, maxLength?: number) => string {
  const hidden = secrets.filter((secret) => secret !== '');
  return (text, maxLength = 300) => {
    let clean = text;
    for (const secret of hidden) clean = clean.split(secret).join('[redacted]');
    return clean.length > maxLength ? `${clean.slice(0, maxLength)}…` : clean;
  };
}
