import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { Deadline } from './exchange-limits.js';
import { PhotographError } from './photograph-error.js';

/** Statuses whose response has no body. */
export const nullBodyStatuses = new Set([101, 103, 204, 205, 304]);

/**
 * fetch bounded by the deadline, with every response body cut off past `maxBytes`. Redirects are
 * never followed: the credential was given for this URL, and a server that sends it elsewhere
 * (another host, or a path the operator never registered) is a failure, not a new address.
 */
export function boundedFetch(deadline: Deadline, maxBytes: number): FetchLike {
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
