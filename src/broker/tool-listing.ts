import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ListToolsResultSchema } from '@modelcontextprotocol/sdk/types.js';
import type { Deadline, ListedTool, PhotographLimits } from './exchange-limits.js';
import { PhotographError } from './photograph-error.js';

/** Connects `client` over `transport` and lists every tool, all under the deadline. */
export async function listAllTools(
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
