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
import { emptyReport, SseSplitter, type UsageReport } from '../domain/budget/upstream-usage.js';
import type { ExchangeEnd } from '../application/model-access/settle-proxied-request.js';
import type { Billing } from '../domain/budget/upstream-usage.js';
import { inSpan } from '../telemetry/tracing.js';

/**
 * Carries one admitted request to the provider and its answer back to the client, reading the
 * answer on the way to meter it. A client that hangs up does not stop the reading: the answer
 * is read to its end (within the exchange's bounds), so the usage settled is the usage reported.
 */

/** An error the client reads in its API's own shape (Anthropic's, OpenAI's). */
export interface WireError {
  readonly status: number;
  headers(): Record<string, string>;
  body(): unknown;
}

/** Follows one stream's events: its usage, and where its end begins. */
export interface StreamMeter {
  readonly report: UsageReport;
  /** Reads one event; true once the stream's end has begun (it waits for the settlement). */
  event(type: string, data: string): boolean;
}

/** How one provider API answers: its streams, its JSON answers, its errors, its request ids. */
export interface ModelWire {
  streamMeter(): StreamMeter;
  readJsonAnswer(body: string): UsageReport;
  /** Statuses with which the provider refuses a request before producing anything. */
  refusalStatuses: ReadonlySet<number>;
  /** Whether a body is the provider's own error shape (with a refusal status: it cost nothing). */
  isErrorBody(parsed: unknown): boolean;
  /** The gate's error when the exchange failed, or the provider refused the gate's key. */
  failure(kind: UpstreamFailure | 'credential'): WireError;
  /** The event that ends a stream which broke off. */
  streamBrokeOff(failure: UpstreamFailure): string;
  /** The answer header carrying the provider's request id. */
  requestIdHeader: string;
}

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

  /** Whether what is written now waits for `finish`. */
  get holding(): boolean {
    return this.#tail !== undefined;
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

  holdError(error: WireError): void {
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
function upstreamRequestId(headers: IncomingHttpHeaders, name: string): string | null {
  const value = headers[name];
  return typeof value === 'string' && /^[A-Za-z0-9_-]{1,128}$/.test(value) ? value : null;
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

/** A blank line (an event's end) in bytes: LF or CRLF, twice. */
const blankLine = /(?:\r\n|\n)(?:\r\n|\n)/g;

/**
 * `chunk` in pieces that each end where an event ends (the last piece: where the chunk ends), so
 * that each event is read whole with the piece that ends it. Read as latin1: one character a
 * byte, and an LF or CR is never part of a longer UTF-8 character.
 */
export function eventPieces(chunk: Buffer): [number, number][] {
  const text = chunk.toString('latin1');
  const pieces: [number, number][] = [];
  let start = 0;
  for (const match of text.matchAll(blankLine)) {
    const end = match.index + match[0].length;
    pieces.push([start, end]);
    start = end;
  }
  if (start < chunk.length || pieces.length === 0) pieces.push([start, chunk.length]);
  return pieces;
}

/** Streams server-sent events through as they arrive, metering them on the way. */
async function relayStream(
  answer: UpstreamAnswer,
  client: ClientLink,
  wire: ModelWire,
): Promise<Relayed> {
  const reader = wire.streamMeter();
  // Counts the events that ask for the tail to be held (the final usage, the end).
  const asked = { toHold: 0 };
  const splitter = new SseSplitter((type, data) => {
    if (reader.event(type, data)) asked.toHold += 1;
  });
  client.res.writeHead(answer.status, downstreamHeaders(answer.headers));
  client.res.flushHeaders();
  let outcome = 'completed';
  try {
    for await (const chunk of answer.body) {
      // The final usage arrives first; from its event on, the stream waits for the settlement.
      // What came before it goes out now, even in the same chunk (a short answer often arrives
      // whole): the client's first byte never waits for the settlement.
      let sent = 0;
      for (const [start, end] of eventPieces(chunk)) {
        const before = asked.toHold;
        splitter.push(chunk.subarray(start, end));
        if (asked.toHold === before || client.holding) continue;
        if (start > sent) await client.write(chunk.subarray(sent, start));
        client.holdTail();
        sent = start;
      }
      if (sent < chunk.length) await client.write(chunk.subarray(sent));
    }
    splitter.end();
  } catch (err) {
    const failure = err instanceof UpstreamError ? err.failure : 'broken';
    outcome = failure;
    await client.write(wire.streamBrokeOff(failure));
  }
  if (outcome === 'completed' && reader.report.errored) outcome = 'upstream_error';
  if (outcome === 'completed' && client.gone) outcome = 'client_disconnected';
  // A report the gate could not follow (an event past its size limit) counts as not reported.
  const report = splitter.overflowed ? emptyReport() : reader.report;
  return { billing: 'billable', report, outcome };
}

/**
 * The provider's own refusal: one of its refusal statuses, with its error shape. Any other error
 * (a 500, a gateway's 502 or 504 in front of the provider) may come after billed work.
 */
function refusedByProvider(wire: ModelWire, status: number, body: Buffer): boolean {
  if (!wire.refusalStatuses.has(status)) return false;
  try {
    return wire.isErrorBody(JSON.parse(body.toString('utf8')));
  } catch {
    return false;
  }
}

/**
 * Reads a JSON answer (or an error) whole, then passes it on as it came. A 2xx answer may be
 * billed even when its body breaks off; only the provider's own refusal is known to cost nothing.
 */
async function relayWhole(
  answer: UpstreamAnswer,
  client: ClientLink,
  wire: ModelWire,
): Promise<Relayed> {
  const answered = answer.status >= 200 && answer.status < 300;
  let body: Buffer;
  try {
    body = await readAll(answer.body, maxJsonAnswerBytes);
  } catch (err) {
    const failure = err instanceof UpstreamError ? err.failure : 'broken';
    client.holdError(wire.failure(failure));
    return { billing: 'billable', report: emptyReport(), outcome: failure };
  }
  const billing: Billing =
    answered || !refusedByProvider(wire, answer.status, body) ? 'billable' : 'not_billed';
  // The provider refusing the gate's own key is the operator's to fix, not the runner's.
  if (answer.status === 401 || answer.status === 403) {
    client.holdError(wire.failure('credential'));
    return { billing, report: emptyReport(), outcome: 'refused' };
  }
  client.hold(answer.status, downstreamHeaders(answer.headers), body);
  const report = answered ? wire.readJsonAnswer(body.toString('utf8')) : emptyReport();
  return { billing, report, outcome: answered ? 'completed' : 'refused' };
}

/**
 * One exchange, up to the end of the upstream's answer; never throws: every way it ends is an
 * ExchangeEnd. The caller then calls `client.finish()`.
 */
export function relayExchange(
  call: UpstreamCall,
  client: ClientLink,
  options: { meter: boolean; wire: ModelWire },
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
  { meter, wire }: { meter: boolean; wire: ModelWire },
): Promise<ExchangeEnd> {
  const started = performance.now();
  let answer: UpstreamAnswer;
  try {
    answer = await callUpstream(call);
  } catch (err) {
    // No answer: a request that had left may have been taken, and is charged at its booking.
    const failure = err instanceof UpstreamError ? err.failure : 'unreachable';
    const billing: Billing = err instanceof UpstreamError && !err.sent ? 'not_billed' : 'billable';
    client.holdError(wire.failure(failure));
    return end(billing, emptyReport(), failure, null, null, started);
  }
  const streamed =
    meter &&
    answer.status >= 200 &&
    answer.status < 300 &&
    (answer.headers['content-type'] ?? '').startsWith('text/event-stream');
  const relayed = streamed
    ? await relayStream(answer, client, wire)
    : await relayWhole(answer, client, wire);
  return end(
    relayed.billing,
    relayed.report,
    relayed.outcome,
    answer.status,
    upstreamRequestId(answer.headers, wire.requestIdHeader),
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
