import type { SessionToolset } from '../domain/tools/session-toolset.js';
import type { DecidedAnswer, PendingAnswer } from '../domain/gate/vocabulary.js';
import { GateError } from '../domain/errors.js';
import { request } from 'undici';

export class GateClientError extends GateError {
  override name = 'GateClientError';
  readonly code = 'gate_client_failed';
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
  /** How long the gate may stay unavailable (503) before a call gives up and denies (seconds). */
  unavailableS?: number;
}

/** One tool call as the runner asks about it. */
export interface ToolCallRequest {
  tool: string;
  arguments: Record<string, unknown>;
  /** A brokered tool: the control plane carries the call out and answers with its result. */
  execute?: boolean;
  /** The digest of the tool as the runner's sandbox serves it now (null: no longer served). */
  observed_digest?: string | null;
}

export interface DecideOptions {
  signal?: AbortSignal;
  /** Called when the call waits for a person, and again after each wait that ended undecided. */
  onPending?: (pending: PendingAnswer) => void;
}

const pause = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => {
      clearTimeout(timer);
      resolve();
    });
  });

// A PUT answers within the gate's own wait (30 s, then 503); a GET within its ?wait= (≤ 60 s).
const requestBoundMs = 90_000;

/**
 * What a runner embeds to ask the gate. A call is identified by its tool-call id: sending it
 * again (after a crash, a timeout, a 503) re-attaches to the same decision, never a new one.
 */
export class GateClient {
  constructor(readonly options: GateClientOptions) {}

  /**
   * One exchange with the gate. A failure to reach it (refused, reset, timed out at the bound) is
   * answered as `unreachable`, which the callers treat as a 503: the same call is sent again, so
   * a gate that restarts mid-call re-attaches it rather than the model asking anew under another
   * id. The caller's own abort, and an exchange that cannot be made at all, are thrown.
   */
  private async request(
    method: 'PUT' | 'GET',
    path: string,
    body: unknown,
    signal?: AbortSignal,
  ): Promise<Answer> {
    const bound = AbortSignal.timeout(requestBoundMs);
    let status: number;
    let text: string;
    try {
      // undici's request rather than fetch: the same client beneath, without the WHATWG streams
      // and objects fetch builds around each exchange, on the path every tool call waits on. A
      // redirect is never followed, whatever the process's dispatcher would do: it is an answer
      // that is not a decision.
      const response = await request(
        `${this.options.baseUrl}/v1/sessions/${encodeURIComponent(this.options.sessionId)}${path}`,
        {
          method,
          maxRedirections: 0,
          headers: {
            authorization: `Bearer ${this.options.sessionToken}`,
            ...(body !== undefined && { 'content-type': 'application/json' }),
          },
          ...(body !== undefined && { body: JSON.stringify(body) }),
          signal: signal ? AbortSignal.any([signal, bound]) : bound,
        },
      );
      status = response.statusCode;
      text = await response.body.text();
    } catch (err) {
      if (signal?.aborted || !reachFailed(err)) throw err;
      return { status: 'unreachable', body: { detail: causeOf(err) } };
    }
    try {
      return { status, body: (text ? JSON.parse(text) : {}) as Record<string, unknown> };
    } catch {
      throw new GateClientError(`the gate answered ${status} with a body that is not JSON`);
    }
  }

  /** The run's frozen tools by origin, with what the runner needs to serve them. */
  async toolset(signal?: AbortSignal): Promise<SessionToolset> {
    const answer = await this.request('GET', '/toolset', undefined, signal);
    if (answer.status !== 200) {
      throw new GateClientError(
        `the gate did not give the run's tools (${answer.status}): ${detailOf(answer.body)}`,
        statusOf(answer),
      );
    }
    return answer.body as unknown as SessionToolset;
  }

  /**
   * Asks the gate about one tool call and waits for the final decision: through a pending
   * approval, and through the gate being briefly unavailable (503, or out of reach) or the
   * session's writes in flight at their cap (429): the same call is sent again, for at most
   * `unavailableS`.
   */
  async decide(
    toolCallId: string,
    call: ToolCallRequest,
    options: DecideOptions = {},
  ): Promise<DecidedAnswer> {
    const { signal } = options;
    const path = `/tool-calls/${encodeURIComponent(toolCallId)}`;
    const giveUpAt = Date.now() + (this.options.unavailableS ?? 120) * 1000;
    let backoffMs = 250;
    for (;;) {
      signal?.throwIfAborted();
      const put = await this.request('PUT', path, call, signal);
      if (put.status === 200) return decidedAnswerOf(put.body, put.status);
      if (put.status === 202) return this.waitForDecision(path, pendingOf(put), options);
      if (!sendAgain(put) || Date.now() >= giveUpAt) {
        throw new GateClientError(
          put.status === 'unreachable'
            ? `the gate could not be reached: ${detailOf(put.body)}`
            : `the gate refused the call (${put.status}): ${detailOf(put.body)}`,
          statusOf(put),
        );
      }
      await pause(backoffMs, signal);
      backoffMs = Math.min(backoffMs * 2, 5_000);
    }
  }

  private async waitForDecision(
    path: string,
    pending: PendingAnswer,
    { signal, onPending }: DecideOptions,
  ): Promise<DecidedAnswer> {
    const waitS = Math.min(this.options.waitS ?? 30, 60);
    let unavailableSince: number | undefined;
    for (;;) {
      onPending?.(pending);
      signal?.throwIfAborted();
      const state = await this.request('GET', `${path}?wait=${waitS}`, undefined, signal);
      if (state.status === 200) return decidedAnswerOf(state.body, state.status);
      if (state.status === 202) {
        unavailableSince = undefined;
        const answer = stillUndecided(state);
        if (answer.status === 'pending_approval') pending = answer;
        continue;
      }
      unavailableSince ??= Date.now();
      const unavailableMs = Date.now() - unavailableSince;
      if (!sendAgain(state) || unavailableMs > (this.options.unavailableS ?? 120) * 1000) {
        throw new GateClientError(
          state.status === 'unreachable'
            ? `the gate could not be reached while waiting: ${detailOf(state.body)}`
            : `the gate answered ${state.status} while waiting`,
          statusOf(state),
        );
      }
      await pause(1_000, signal);
    }
  }
}

/** What one exchange with the gate came to: its status and JSON body, or no answer at all. */
interface Answer {
  status: number | 'unreachable';
  body: Record<string, unknown>;
}

/** An answer after which the same call is sent again: the gate busy, at a cap, or out of reach. */
const sendAgain = (answer: Answer) =>
  answer.status === 503 || answer.status === 429 || answer.status === 'unreachable';

const statusOf = (answer: Answer) => (answer.status === 'unreachable' ? undefined : answer.status);

/** Failures of the way to the gate, not of what was asked: these alone are sent again. */
const outageCodes = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'UND_ERR_SOCKET',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
]);

/**
 * Whether an exchange failed for want of the gate (a connection refused, reset or closed, a DNS
 * answer not there yet, the bound reached). Anything else (an address that is no URL, a name
 * that does not resolve, a certificate that does not hold, a request undici refuses to send) is
 * no outage, and denies at once.
 */
function reachFailed(err: unknown): boolean {
  if (err instanceof Error && err.name === 'TimeoutError') return true;
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && outageCodes.has(code);
}

const causeOf = (err: unknown) => (err instanceof Error ? err.message : String(err));

/** A 202 as the gate gives one (a call waiting on a person, or still evaluated), or an error. */
function stillUndecided(answer: Answer): PendingAnswer | { status: 'evaluating' } {
  const body = answer.body as Partial<PendingAnswer> | { status?: unknown } | null;
  if (body?.status === 'evaluating') return { status: 'evaluating' };
  return pendingOf(answer);
}

/** A pending answer as the gate gives one: anything else that says 202 is not waited on. */
function pendingOf(answer: Answer): PendingAnswer {
  const body = answer.body as Partial<PendingAnswer> | null;
  if (body?.status === 'pending_approval' && typeof body.approval?.url === 'string') {
    return body as PendingAnswer;
  }
  throw new GateClientError(
    `the gate answered ${String(answer.status)} without a pending approval`,
  );
}

/**
 * A decision as the gate gives one, or an error: any other 200 (a GATE_URL that points at
 * something else, a catch-all, a stub) must never read as an allow.
 */
function decidedAnswerOf(body: unknown, status: number): DecidedAnswer {
  const answer = body as Partial<DecidedAnswer> | null;
  if (
    answer?.status === 'decided' &&
    (answer.decision === 'allow' || answer.decision === 'deny') &&
    typeof answer.reason === 'string'
  ) {
    return answer as DecidedAnswer;
  }
  throw new GateClientError(`the gate answered ${status} without a decision`, status);
}

/** What the agent SDK integration needs of a client: its decisions. */
export type GateDecider = Pick<GateClient, 'decide'>;

function detailOf(body: Record<string, unknown> | null): string {
  return typeof body?.detail === 'string' ? body.detail : 'no detail';
}
