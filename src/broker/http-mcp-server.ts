import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CallToolResultSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { boundedFetch } from './bounded-fetch.js';
import { httpFailure } from './exchange-failures.js';
import {
  clientInfo,
  Deadline,
  withDefaults,
  type HttpPhotographOptions,
  type ListedTool,
} from './exchange-limits.js';
import { PhotographError } from './photograph-error.js';
import type { Dial } from './reach-fetch.js';
import type { BearerCredential } from './sealing.js';
import { redactor } from './secret-redactor.js';
import { listAllTools } from './tool-listing.js';

/**
 * Lists the tools of an MCP server over Streamable HTTP with a bearer token, following
 * pagination, within a time bound, dialling only where `dial` allows. Throws `PhotographError`;
 * its message never holds the token.
 */
export async function photographHttp(
  url: string,
  credential: BearerCredential,
  dial: Dial,
  options: HttpPhotographOptions = {},
): Promise<ListedTool[]> {
  const limits = withDefaults(options);
  return withHttpClient(
    url,
    credential,
    dial,
    limits,
    'no complete tools/list',
    (client, transport, deadline) => listAllTools(client, transport, deadline, limits),
  );
}

interface CallToolOptions {
  timeoutMs?: number;
  maxResponseBytes?: number;
  maxExchangeBytes?: number;
}

/** What a confirmed call came to: the server's result, or the reason it was never sent. */
type ConfirmedCall<R> = { called: true; result: CallToolResult } | { called: false; refusal: R };

/**
 * Calls one tool on an MCP server over Streamable HTTP with a bearer token, within a time
 * bound and a bound on the answer's size, dialling only where `dial` allows. On the same authenticated session, the server's
 * `tools/list` is read first and handed to `confirm`: anything it returns refuses the call, which
 * is then never sent. The result is returned as the server sent it.
 */
export async function callToolHttp<R>(
  url: string,
  credential: BearerCredential,
  dial: Dial,
  tool: { name: string; arguments: Record<string, unknown> },
  confirm: (listed: ListedTool[]) => R | undefined,
  options: CallToolOptions = {},
): Promise<ConfirmedCall<R>> {
  const limits = withDefaults({
    timeoutMs: options.timeoutMs ?? 30_000,
    maxResponseBytes: options.maxResponseBytes,
    maxExchangeBytes: options.maxExchangeBytes,
  });
  return withHttpClient(
    url,
    credential,
    dial,
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
  dial: Dial,
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
    fetch: boundedFetch(deadline, limits.maxResponseBytes, limits.maxExchangeBytes, dial),
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
