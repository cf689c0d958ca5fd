import http, { type IncomingHttpHeaders, type IncomingMessage } from 'node:http';
import https from 'node:https';
import { GateError } from '../domain/errors.js';

/**
 * One exchange with a model provider: the request's bytes go out unchanged, with the provider's
 * key; the answer comes back as it arrives. Every exchange ends within its bounds: no byte for
 * `idleTimeoutMs`, or `totalTimeoutMs` in all, destroys it.
 */

const agents = {
  'http:': new http.Agent({ keepAlive: true }),
  'https:': new https.Agent({ keepAlive: true }),
};

/**
 * The client's headers the provider gets: an allow list. Anything else a sandbox sends (a
 * gateway's routing or billing headers, `x-forwarded-for`, cookies, its own key) stays here.
 */
const forwardedHeaders = {
  anthropic: new Set(['accept', 'anthropic-beta', 'anthropic-version', 'user-agent']),
  // Not `openai-organization` or `openai-project`: they choose whom the provider bills.
  openai: new Set(['accept', 'openai-beta', 'user-agent']),
} as const;

/** The headers the provider gets: the allowed client headers, then the gate's own. */
export function upstreamHeaders(
  api: 'anthropic' | 'openai',
  client: IncomingHttpHeaders,
  apiKey: string,
  bodyBytes: number,
): Record<string, string | string[]> {
  const headers: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(client)) {
    if (value !== undefined && forwardedHeaders[api].has(name)) headers[name] = value;
  }
  if (api === 'anthropic') headers['x-api-key'] = apiKey;
  else headers.authorization = `Bearer ${apiKey}`;
  // What the gate read and bounded is JSON in UTF-8, whatever the client called it.
  headers['content-type'] = 'application/json';
  // The gate reads the answer to meter it, so it asks for it uncompressed.
  headers['accept-encoding'] = 'identity';
  headers['content-length'] = String(bodyBytes);
  return headers;
}

/** Answer headers worth passing back: type, request id, retry advice, rate-limit figures. */
export function downstreamHeaders(upstream: IncomingHttpHeaders): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(upstream)) {
    if (typeof value !== 'string') continue;
    if (
      [
        'content-type',
        'cache-control',
        'request-id',
        'retry-after',
        'retry-after-ms',
        'x-should-retry',
        'x-request-id',
        'openai-processing-ms',
      ].includes(name) ||
      name.startsWith('anthropic-ratelimit-') ||
      name.startsWith('x-ratelimit-')
    )
      headers[name] = value;
  }
  return headers;
}

/** The provider's URL for a path of its API, keeping the base URL's own path. */
export function upstreamUrl(baseUrl: string, path: string, search: string): URL {
  const url = new URL(baseUrl);
  url.pathname = `${url.pathname.replace(/\/+$/, '')}${path}`;
  url.search = search;
  return url;
}

export type UpstreamFailure = 'unreachable' | 'timeout' | 'broken';

export class UpstreamError extends GateError {
  override name = 'UpstreamError';
  readonly code = 'model_upstream_failed';
  constructor(
    readonly failure: UpstreamFailure,
    message: string,
    /** The whole request had left the gate: the provider may have taken (and billed) it. */
    readonly sent = true,
  ) {
    super(message);
  }
}

export interface UpstreamCall {
  url: URL;
  headers: Record<string, string | string[]>;
  body: Buffer;
  idleTimeoutMs: number;
  totalTimeoutMs: number;
}

/** An answer whose headers arrived. Reading `body` throws an UpstreamError if it breaks off. */
export interface UpstreamAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  body: AsyncIterable<Buffer>;
  /** Ends the exchange early (the caller has what it needs, or gives up). */
  abort(): void;
}

/** Sends the request; resolves when the answer's headers arrive. */
export function callUpstream(call: UpstreamCall): Promise<UpstreamAnswer> {
  const transport = call.url.protocol === 'https:' ? https : http;
  const agent = agents[call.url.protocol as keyof typeof agents];
  let failure: UpstreamError | undefined;
  let sent = false;
  const request = transport.request(call.url, { method: 'POST', headers: call.headers, agent });
  request.on('finish', () => {
    sent = true;
  });
  const fail = (error: UpstreamError) => {
    failure ??= error;
    request.destroy(failure);
  };
  const total = setTimeout(() => {
    fail(
      new UpstreamError(
        'timeout',
        `the model provider did not finish within ${call.totalTimeoutMs} ms`,
      ),
    );
  }, call.totalTimeoutMs);
  let idle: NodeJS.Timeout | undefined;
  const touch = () => {
    clearTimeout(idle);
    idle = setTimeout(() => {
      fail(
        new UpstreamError(
          'timeout',
          `the model provider sent nothing for ${call.idleTimeoutMs} ms`,
          sent,
        ),
      );
    }, call.idleTimeoutMs);
  };
  const settle = () => {
    clearTimeout(total);
    clearTimeout(idle);
  };
  touch();
  return new Promise<UpstreamAnswer>((resolve, reject) => {
    request.on('error', (err) => {
      settle();
      reject(
        failure ??
          new UpstreamError(
            'unreachable',
            `the model provider could not be reached: ${err.message}`,
            sent,
          ),
      );
    });
    request.on('response', (response: IncomingMessage) => {
      touch();
      resolve({
        status: response.statusCode ?? 502,
        headers: response.headers,
        body: readBody(response, touch, settle, () => failure),
        abort: () => {
          settle();
          request.destroy();
        },
      });
    });
    request.end(call.body);
  });
}

async function* readBody(
  response: IncomingMessage,
  touch: () => void,
  settle: () => void,
  failure: () => UpstreamError | undefined,
): AsyncGenerator<Buffer> {
  try {
    for await (const chunk of response) {
      touch();
      yield chunk as Buffer;
    }
    // A connection cut mid-answer may end the stream quietly rather than with an error.
    if (!response.complete)
      throw failure() ?? new UpstreamError('broken', 'the model provider broke off its answer');
  } catch (err) {
    if (err instanceof UpstreamError) throw err;
    throw failure() ?? new UpstreamError('broken', 'the model provider broke off its answer');
  } finally {
    settle();
  }
}
