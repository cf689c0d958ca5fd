import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import { UnreachableAddressError } from './address-reach.js';
import type { Deadline } from './exchange-limits.js';
import { PhotographError } from './photograph-error.js';
import { cappedResponse, reachFetch, type Dial } from './reach-fetch.js';

/**
 * fetch of an MCP exchange: dialling only where the connection may reach (the address each socket
 * opens to), bounded by the deadline, every response body cut off past `maxBytes`. Redirects are
 * never followed: the credential was given for this URL, and a server that sends it elsewhere
 * (another host, or a path the operator never registered) is a failure, not a new address.
 */
export function boundedFetch(
  deadline: Deadline,
  maxBytes: number,
  maxExchangeBytes: number,
  dial: Dial,
): FetchLike {
  const send = reachFetch(dial, deadline.ms);
  const exchange = { seen: 0 };
  return async (url, init) => {
    const signal = init?.signal ? AbortSignal.any([init.signal, deadline.signal]) : deadline.signal;
    let response: Response;
    try {
      response = await send(url, { ...init, signal, redirect: 'manual' });
    } catch (error) {
      if (!(error instanceof UnreachableAddressError)) throw error;
      const refused = new PhotographError('refused_address', error.message);
      deadline.fail(refused);
      throw refused;
    }
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
    return cappedResponse(
      response,
      maxBytes,
      () =>
        new PhotographError(
          'too_large',
          `a response from the server was larger than ${maxBytes} bytes`,
        ),
      (error) => {
        deadline.fail(error);
      },
      {
        counter: exchange,
        maxBytes: maxExchangeBytes,
        tooLarge: () =>
          new PhotographError(
            'too_large',
            `the server's responses in one exchange came to more than ${maxExchangeBytes} bytes`,
          ),
      },
    );
  };
}
