/**
 * The fetch every exchange with a connection's servers goes through: its MCP traffic and its
 * OAuth exchanges. Each socket is opened only where the connection may reach
 * (./address-reach.ts), and a body is cut off past its bound.
 */
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import { fetch, type RequestInit as UndiciInit } from 'undici';
import { reachAgent, UnreachableAddressError, type Reach, type Resolve } from './address-reach.js';

/** Where one connection's traffic may go, and the resolver its host names are asked of. */
export interface Dial {
  reach: Reach;
  resolve: Resolve;
}

/** Statuses whose response has no body. */
const nullBodyStatuses = new Set([101, 103, 204, 205, 304]);

/**
 * fetch through an agent that dials only where `dial` allows, answering the global Response the
 * MCP SDK expects. A refused address rejects with the UnreachableAddressError itself, never a
 * TypeError a caller would take for a network failure.
 */
export function reachFetch(dial: Dial, connectTimeoutMs: number): FetchLike {
  const dispatcher = reachAgent(dial.reach, connectTimeoutMs, dial.resolve);
  return async (url, init) => {
    try {
      // undici's RequestInit is the global one's superset (it adds the dispatcher).
      const answer = await fetch(url, { ...(init as UndiciInit), dispatcher });
      const response = new Response(nullBodyStatuses.has(answer.status) ? null : answer.body, {
        status: answer.status,
        statusText: answer.statusText,
        headers: [...answer.headers],
      });
      // The SDK names the URL of an answer it cannot use (a redirect it does not follow).
      Object.defineProperty(response, 'url', { value: answer.url });
      return response;
    } catch (error) {
      if (error instanceof TypeError && error.cause instanceof UnreachableAddressError) {
        throw error.cause;
      }
      throw error;
    }
  };
}

/** A bound several responses share: each one's bytes count towards `counter.seen`. */
interface SharedBound<E extends Error> {
  counter: { seen: number };
  maxBytes: number;
  tooLarge: () => E;
}

/**
 * The response with its body cut off past `maxBytes`, or once the bodies sharing `shared` come to
 * more than its bound: reading on fails with `tooLarge()` (or the shared bound's), which
 * `onTooLarge` is told of first (to end the exchange it belongs to).
 */
export function cappedResponse<E extends Error>(
  response: Response,
  maxBytes: number,
  tooLarge: () => E,
  onTooLarge: (error: E) => void = () => undefined,
  shared?: SharedBound<E>,
): Response {
  if (!response.body || nullBodyStatuses.has(response.status)) return response;
  let seen = 0;
  const counted = response.body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        seen += chunk.byteLength;
        if (shared) shared.counter.seen += chunk.byteLength;
        const over =
          seen > maxBytes
            ? tooLarge
            : shared && shared.counter.seen > shared.maxBytes
              ? shared.tooLarge
              : undefined;
        if (over) {
          const error = over();
          onTooLarge(error);
          controller.error(error);
          return;
        }
        controller.enqueue(chunk);
      },
    }),
  );
  const capped = new Response(counted, {
    status: response.status,
    statusText: response.statusText,
    headers: response.headers,
  });
  Object.defineProperty(capped, 'url', { value: response.url });
  return capped;
}
