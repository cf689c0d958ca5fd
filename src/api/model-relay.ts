import type { IncomingHttpHeaders, ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import {
  callUpstream,
  downstreamHeaders,
  UpstreamError,
  type UpstreamAnswer,
  type UpstreamCall,
  type UpstreamFailure,
} from '../broker/model-upstream.js';
import {
  emptyReport,
  readJsonAnswer,
  SseSplitter,
  StreamUsageReader,
  type UsageReport,
} from '../domain/budget/upstream-usage.js';
import type { ExchangeEnd } from '../application/model-access/settle-proxied-request.js';
import type { Billing } from '../domain/budget/upstream-usage.js';
import { inSpan } from '../telemetry/tracing.js';
import { AnthropicError } from './anthropic-errors.js';

/**
 * Carries one admitted request to the provider and its answer back to the client, reading the
 * answer on the way to meter it. A client that hangs up does not stop the reading: the answer
 * is read to its end (within the exchange's bounds), so the usage settled is the usage reported.
 */

/** A JSON answer larger than this is not read whole: it counts as broken. */
const maxJsonAnswerBytes = 64 * 1024 * 1024;

/** The most of a stream's end the gate holds back before it lets bytes through again. */
const maxHeldTailBytes = 1024 * 1024;

/**
 * The client's side of the exchange: writes stop, silently, once it has gone. A whole answer is
 * held, and a stream's end (from its final usage on) with it, until `finish`: the route settles
 * the budget first, so a client holding the complete answer never sees the budget, or the
 * thinking blocks its next turn sends back, before the settlement that records them.
 *
 * A client that stops reading does not stop the exchange: what waits for it is bounded (one
 * write beyond the socket's buffer, and the held tail), and one write it has not taken within
 * `writeDeadlineMs` drops it, so the upstream is read to its end and settled either way.
 */
export class ClientLink {
  gone = false;
  #held: { status: number; headers: Record<string, string>; body: Buffer } | undefined;
  #tail: Buffer[] | undefined;
  #tailBytes = 0;

  constructor(
    readonly res: ServerResponse,
    private readonly writeDeadlineMs: number,
  ) {
    res.on('close', () => {
      if (!res.writableFinished) this.gone = true;
    });
  }

  /** From now on, what is written waits for `finish` (up to a bound). */
  holdTail(): void {
    this.#tail ??= [];
  }

  async write(chunk: Buffer | string): Promise<void> {
    if (this.gone) return;
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    if (this.#tail) {
      this.#tail.push(bytes);
      this.#tailBytes += bytes.length;
      if (this.#tailBytes <= maxHeldTailBytes) return;
      // Past the bound the stream is not ending: what was held goes out, in order.
      await this.#send(Buffer.concat(this.#tail));
      this.#tail = undefined;
      this.#tailBytes = 0;
      return;
    }
    await this.#send(bytes);
  }

  async #send(chunk: Buffer): Promise<void> {
    if (this.gone || this.res.write(chunk)) return;
    const drained = await new Promise<boolean>((resolve) => {
      const done = (took: boolean) => () => {
        clearTimeout(deadline);
        this.res.off('drain', onDrain);
        this.res.off('close', onClose);
        resolve(took);
      };
      const onDrain = done(true);
      const onClose = done(false);
      const deadline = setTimeout(done(false), this.writeDeadlineMs);
      this.res.on('drain', onDrain);
      this.res.on('close', onClose);
    });
    if (!drained) this.drop();
  }

  /** The client is not reading: it is cut off, and nothing more is written or held for it. */
  drop(): void {
    this.gone = true;
    this.#tail = undefined;
    this.res.destroy();
  }

  hold(status: number, headers: Record<string, string>, body: Buffer): void {
    this.#held = { status, headers: { ...headers, 'content-length': String(body.length) }, body };
  }

  holdError(error: AnthropicError): void {
    this.hold(error.status, error.headers(), Buffer.from(JSON.stringify(error.body())));
  }

  finish(): void {
    if (this.gone || this.res.writableEnded) return;
    const held = this.#held;
    if (held && !this.res.headersSent) {
      this.res.writeHead(held.status, held.headers);
      this.res.end(held.body);
      return;
    }
    this.res.end(this.#tail ? Buffer.concat(this.#tail) : undefined);
  }
}

/** The provider's own request id, kept only if it looks like one. */
function upstreamRequestId(headers: IncomingHttpHeaders): string | null {
  const value = headers['request-id'];
  return typeof value === 'string' && /^[A-Za-z0-9_-]{1,128}$/.test(value) ? value : null;
}

function failureError(failure: UpstreamFailure): AnthropicError {
  if (failure === 'timeout')
    return new AnthropicError(504, 'timeout_error', 'the model provider did not answer in time');
  return new AnthropicError(502, 'api_error', 'the model provider could not be reached');
}

function sseError(type: string, message: string): string {
  return `event: error\ndata: ${JSON.stringify({ type: 'error', error: { type, message } })}\n\n`;
}

async function readAll(body: AsyncIterable<Buffer>, cap: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += chunk.length;
    if (size > cap)
      throw new UpstreamError('broken', 'the model provider answered more than the gate reads');
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

interface Relayed {
  billing: Billing;
  report: UsageReport;
  outcome: string;
}

/** Streams server-sent events through as they arrive, metering them on the way. */
async function relayStream(answer: UpstreamAnswer, client: ClientLink): Promise<Relayed> {
  const reader = new StreamUsageReader();
  const splitter = new SseSplitter((type, data) => {
    reader.event(type, data);
    // The final usage arrives first; the end of the stream waits for the settlement.
    if (type === 'message_delta' || type === 'message_stop') client.holdTail();
  });
  client.res.writeHead(answer.status, downstreamHeaders(answer.headers));
  client.res.flushHeaders();
  let outcome = 'completed';
  try {
    for await (const chunk of answer.body) {
      splitter.push(chunk);
      await client.write(chunk);
    }
    splitter.end();
  } catch (err) {
    const failure = err instanceof UpstreamError ? err.failure : 'broken';
    outcome = failure;
    await client.write(
      sseError(failureError(failure).type, `the model provider's answer ended early (${failure})`),
    );
  }
  if (outcome === 'completed' && reader.report.errored) outcome = 'upstream_error';
  if (outcome === 'completed' && client.gone) outcome = 'client_disconnected';
  // A report the gate could not follow (an event past its size limit) counts as not reported.
  const report = splitter.overflowed ? emptyReport() : reader.report;
  return { billing: 'billable', report, outcome };
}

/**
 * Statuses with which the provider refuses a request before producing anything. Any other error
 * (a 500, a gateway's 502 or 504 in front of the provider) may come after billed work.
 */
const refusalStatuses = new Set([400, 401, 403, 404, 413, 429, 529]);

/** The provider's own refusal: one of those statuses, with its error shape. */
function refusedByProvider(status: number, body: Buffer): boolean {
  if (!refusalStatuses.has(status)) return false;
  try {
    const parsed = JSON.parse(body.toString('utf8')) as {
      type?: unknown;
      error?: { type?: unknown };
    };
    return parsed.type === 'error' && typeof parsed.error?.type === 'string';
  } catch {
    return false;
  }
}

/**
 * Reads a JSON answer (or an error) whole, then passes it on as it came. A 2xx answer may be
 * billed even when its body breaks off; only the provider's own refusal is known to cost nothing.
 */
async function relayWhole(answer: UpstreamAnswer, client: ClientLink): Promise<Relayed> {
  const answered = answer.status >= 200 && answer.status < 300;
  let body: Buffer;
  try {
    body = await readAll(answer.body, maxJsonAnswerBytes);
  } catch (err) {
    const failure = err instanceof UpstreamError ? err.failure : 'broken';
    client.holdError(failureError(failure));
    return { billing: 'billable', report: emptyReport(), outcome: failure };
  }
  const billing: Billing =
    answered || !refusedByProvider(answer.status, body) ? 'billable' : 'not_billed';
  // The provider refusing the gate's own key is the operator's to fix, not the runner's.
  if (answer.status === 401 || answer.status === 403) {
    client.holdError(
      new AnthropicError(502, 'api_error', "the model provider refused the gate's credential"),
    );
    return { billing, report: emptyReport(), outcome: 'refused' };
  }
  client.hold(answer.status, downstreamHeaders(answer.headers), body);
  const report = answered ? readJsonAnswer(body.toString('utf8')) : emptyReport();
  return { billing, report, outcome: answered ? 'completed' : 'refused' };
}

/**
 * One exchange, up to the end of the upstream's answer; never throws: every way it ends is an
 * ExchangeEnd. The caller then calls `client.finish()`.
 */
export function relayExchange(
  call: UpstreamCall,
  client: ClientLink,
  options: { meter: boolean },
): Promise<ExchangeEnd> {
  return inSpan(
    'model upstream',
    {},
    () => exchange(call, client, options),
    ({ facts }) => ({
      'gate.model.outcome': facts.outcome,
      'gate.model.latency_ms': facts.latency_ms,
      ...(facts.upstream_status !== null && { 'http.response.status_code': facts.upstream_status }),
    }),
  );
}

async function exchange(
  call: UpstreamCall,
  client: ClientLink,
  { meter }: { meter: boolean },
): Promise<ExchangeEnd> {
  const started = performance.now();
  let answer: UpstreamAnswer;
  try {
    answer = await callUpstream(call);
  } catch (err) {
    // No answer: a request that had left may have been taken, and is charged at its booking.
    const failure = err instanceof UpstreamError ? err.failure : 'unreachable';
    const billing: Billing = err instanceof UpstreamError && !err.sent ? 'not_billed' : 'billable';
    client.holdError(failureError(failure));
    return end(billing, emptyReport(), failure, null, null, started);
  }
  const streamed =
    meter &&
    answer.status >= 200 &&
    answer.status < 300 &&
    (answer.headers['content-type'] ?? '').startsWith('text/event-stream');
  const relayed = streamed ? await relayStream(answer, client) : await relayWhole(answer, client);
  return end(
    relayed.billing,
    relayed.report,
    relayed.outcome,
    answer.status,
    upstreamRequestId(answer.headers),
    started,
  );
}

function end(
  billing: Billing,
  report: UsageReport,
  outcome: string,
  status: number | null,
  requestId: string | null,
  started: number,
): ExchangeEnd {
  return {
    billing,
    report,
    facts: {
      outcome,
      upstream_status: status,
      upstream_request_id: requestId,
      latency_ms: Math.round(performance.now() - started),
    },
  };
}
