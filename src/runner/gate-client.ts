import type { DecidedAnswer, GateAnswer } from '../domain/gate/vocabulary.js';

export class GateClientError extends Error {
  override name = 'GateClientError';
  constructor(
    message: string,
    readonly status?: number,
  ) {
    super(message);
  }
}

export interface GateClientOptions {
  /** Where the gate's API is, e.g. http://127.0.0.1:8080. */
  baseUrl: string;
  sessionId: string;
  /** The session token run creation returned: the runner's only credential. */
  sessionToken: string;
  /** How long one wait for a pending approval may last before asking again (seconds, ≤ 60). */
  waitS?: number;
}

const pause = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => {
      clearTimeout(timer);
      resolve();
    });
  });

/**
 * What a runner embeds to ask the gate. A call is identified by its tool-call id: sending it
 * again (after a crash, a timeout, a 503) re-attaches to the same decision, never a new one.
 */
export class GateClient {
  constructor(private readonly options: GateClientOptions) {}

  private async request(method: 'PUT' | 'GET', path: string, body: unknown, signal?: AbortSignal) {
    const response = await fetch(
      `${this.options.baseUrl}/v1/sessions/${encodeURIComponent(this.options.sessionId)}${path}`,
      {
        method,
        headers: {
          authorization: `Bearer ${this.options.sessionToken}`,
          ...(body !== undefined && { 'content-type': 'application/json' }),
        },
        ...(body !== undefined && { body: JSON.stringify(body) }),
        ...(signal && { signal }),
      },
    );
    const text = await response.text();
    return {
      status: response.status,
      body: (text ? JSON.parse(text) : {}) as Record<string, unknown>,
    };
  }

  /**
   * Asks the gate about one tool call and waits for the final decision: through a pending
   * approval, and through the gate being briefly unavailable (503: the same call is sent again).
   */
  async decide(
    toolCallId: string,
    call: { tool: string; arguments: Record<string, unknown>; execute?: boolean },
    signal?: AbortSignal,
  ): Promise<DecidedAnswer> {
    const path = `/tool-calls/${encodeURIComponent(toolCallId)}`;
    let backoffMs = 250;
    for (;;) {
      signal?.throwIfAborted();
      const put = await this.request('PUT', path, call, signal);
      if (put.status === 200) return put.body as unknown as DecidedAnswer;
      if (put.status === 202) return this.waitForDecision(path, signal);
      if (put.status !== 503) {
        throw new GateClientError(
          `the gate refused the call (${put.status}): ${typeof put.body.detail === 'string' ? put.body.detail : 'no detail'}`,
          put.status,
        );
      }
      await pause(backoffMs, signal);
      backoffMs = Math.min(backoffMs * 2, 5_000);
    }
  }

  private async waitForDecision(path: string, signal?: AbortSignal): Promise<DecidedAnswer> {
    const waitS = Math.min(this.options.waitS ?? 30, 60);
    for (;;) {
      signal?.throwIfAborted();
      const state = await this.request('GET', `${path}?wait=${waitS}`, undefined, signal);
      const answer = state.body as unknown as GateAnswer | { status: 'evaluating' };
      if (state.status === 200 && answer.status === 'decided') return answer;
      if (state.status !== 202 && state.status !== 503) {
        throw new GateClientError(`the gate answered ${state.status} while waiting`, state.status);
      }
      if (state.status === 503) await pause(1_000, signal);
    }
  }
}
