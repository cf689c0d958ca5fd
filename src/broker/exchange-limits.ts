import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { PhotographError } from './photograph-error.js';

/** One entry of a server's `tools/list`, exactly as the SDK parsed it. */
export type ListedTool = Tool;

export interface PhotographLimits {
  /** Bound on the whole photograph: connecting, every page, and closing. */
  timeoutMs?: number;
  maxTools?: number;
  maxPages?: number;
}

export interface HttpPhotographOptions extends PhotographLimits {
  /** Bound on the body of any one HTTP response. */
  maxResponseBytes?: number;
  /** Bound on the bodies of all the exchange's HTTP responses together, its SSE stream included. */
  maxExchangeBytes?: number;
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
  maxExchangeBytes: 8 * 1024 * 1024,
  maxOutputBytes: 8 * 1024 * 1024,
  maxStderrBytes: 64 * 1024,
};

// `??` rather than a spread, so a caller passing `{ timeoutMs: undefined }` still gets a bound.
export function withDefaults(options: HttpPhotographOptions & StdioPhotographOptions) {
  return {
    timeoutMs: options.timeoutMs ?? defaults.timeoutMs,
    maxTools: options.maxTools ?? defaults.maxTools,
    maxPages: options.maxPages ?? defaults.maxPages,
    maxResponseBytes: options.maxResponseBytes ?? defaults.maxResponseBytes,
    maxExchangeBytes: options.maxExchangeBytes ?? defaults.maxExchangeBytes,
    maxOutputBytes: options.maxOutputBytes ?? defaults.maxOutputBytes,
    maxStderrBytes: options.maxStderrBytes ?? defaults.maxStderrBytes,
  };
}

/** How the gate names itself to an MCP server. */
export const clientInfo = { name: 'fluidbox-gate', version: '0.1.0' };

/** One clock for the whole photograph; the first failure of any kind aborts everything. */
export class Deadline {
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
