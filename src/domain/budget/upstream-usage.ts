/**
 * What a Messages response says it used, read from the bytes passed through: the server-sent
 * events of a stream (`message_start` reports input and cache tokens, `message_delta` the output
 * so far) or the `usage` of a JSON answer. It also collects the thinking blocks the response
 * carries, so they can be bounded when they are sent back. Pure: no I/O.
 */
import { thinkingDigest } from './thinking-origins.js';

export interface ReportedUsage {
  input_tokens: number;
  cache_creation_input_tokens: number;
  cache_read_input_tokens: number;
  output_tokens: number;
}

/** What was seen of a response: usage as reported, whether it completed, its thinking blocks. */
export interface UsageReport {
  /** Input and cache figures arrived (`message_start`, or a JSON answer). */
  inputReported: boolean;
  /** The final output figure arrived (`message_delta`, or a JSON answer). */
  outputReported: boolean;
  usage: ReportedUsage;
  /** `message_stop` arrived, or a JSON answer was read whole. */
  complete: boolean;
  /** The stream carried an `error` event. */
  errored: boolean;
  /** Digests of the thinking and redacted thinking blocks produced. */
  thinking: string[];
}

export function emptyReport(): UsageReport {
  return {
    inputReported: false,
    outputReported: false,
    usage: {
      input_tokens: 0,
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: 0,
      output_tokens: 0,
    },
    complete: false,
    errored: false,
    thinking: [],
  };
}

const usageFields = [
  'input_tokens',
  'cache_creation_input_tokens',
  'cache_read_input_tokens',
  'output_tokens',
] as const;

const figure = (value: unknown): number | undefined =>
  typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 ? value : undefined;

/**
 * Copies the figures present (non-negative integers); later reports supersede earlier ones. A
 * response that ran several passes (`usage.iterations`) counts each figure at the larger of its
 * top-level value and its sum over the passes: the top level may report only the last one.
 */
function takeUsage(report: UsageReport, usage: unknown): boolean {
  if (typeof usage !== 'object' || usage === null) return false;
  const iterations = (usage as Record<string, unknown>).iterations;
  const passes = Array.isArray(iterations) ? (iterations as unknown[]) : [];
  let took = false;
  for (const field of usageFields) {
    const top = figure((usage as Record<string, unknown>)[field]);
    const summed = passes.reduce<number | undefined>((sum, pass) => {
      const value =
        typeof pass === 'object' && pass !== null ? figure((pass as Json)[field]) : undefined;
      return value === undefined ? sum : (sum ?? 0) + value;
    }, undefined);
    const value = Math.max(top ?? 0, summed ?? 0);
    if (top !== undefined || summed !== undefined) {
      report.usage[field] = value;
      took = true;
    }
  }
  return took;
}

/** The tokens the reported usage counts: cache reads and writes are input too. */
function reportedTokens(usage: ReportedUsage): { input: number; output: number } {
  return {
    input: usage.input_tokens + usage.cache_creation_input_tokens + usage.cache_read_input_tokens,
    output: usage.output_tokens,
  };
}

type Json = Record<string, unknown>;
const field = (value: unknown, name: string): unknown =>
  typeof value === 'object' && value !== null ? (value as Json)[name] : undefined;

/** Follows one stream's events. Signatures arrive in pieces, keyed by block index. */
export class StreamUsageReader {
  readonly report = emptyReport();
  readonly #signatures = new Map<number, string>();

  event(type: string, data: string): void {
    // Text and tool-input deltas are most of a stream and say nothing about usage.
    if (type === 'ping' || (type === 'content_block_delta' && !data.includes('signature_delta')))
      return;
    let parsed: unknown;
    try {
      parsed = JSON.parse(data);
    } catch {
      return;
    }
    this.#apply(type, parsed);
  }

  #apply(type: string, data: unknown): void {
    const report = this.report;
    if (type === 'message_start') {
      if (takeUsage(report, field(field(data, 'message'), 'usage'))) report.inputReported = true;
    } else if (type === 'message_delta') {
      if (takeUsage(report, field(data, 'usage'))) report.outputReported = true;
    } else if (type === 'message_stop') {
      report.complete = true;
    } else if (type === 'error') {
      report.errored = true;
    } else {
      this.#thinking(type, data);
    }
  }

  #thinking(type: string, data: unknown): void {
    const index = field(data, 'index');
    if (typeof index !== 'number') return;
    if (type === 'content_block_start') {
      const block = field(data, 'content_block');
      const kind = field(block, 'type');
      const redacted = field(block, 'data');
      if (kind === 'redacted_thinking' && typeof redacted === 'string')
        this.report.thinking.push(thinkingDigest(redacted));
      if (kind === 'thinking') this.#signatures.set(index, '');
    } else if (type === 'content_block_delta') {
      const delta = field(data, 'delta');
      const piece = field(delta, 'signature');
      const open = this.#signatures.get(index);
      if (
        field(delta, 'type') === 'signature_delta' &&
        typeof piece === 'string' &&
        open !== undefined
      )
        this.#signatures.set(index, open + piece);
    } else if (type === 'content_block_stop') {
      const signature = this.#signatures.get(index);
      if (signature) this.report.thinking.push(thinkingDigest(signature));
      this.#signatures.delete(index);
    }
  }
}

/** The report of a JSON (non-streamed) answer. */
export function readJsonAnswer(body: string): UsageReport {
  const report = emptyReport();
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return report;
  }
  if (takeUsage(report, field(parsed, 'usage'))) {
    report.inputReported = true;
    report.outputReported = true;
    report.complete = true;
  }
  const content = field(parsed, 'content');
  for (const block of Array.isArray(content) ? (content as unknown[]) : []) {
    const signature = field(block, 'signature');
    const data = field(block, 'data');
    if (field(block, 'type') === 'thinking' && typeof signature === 'string' && signature)
      report.thinking.push(thinkingDigest(signature));
    if (field(block, 'type') === 'redacted_thinking' && typeof data === 'string')
      report.thinking.push(thinkingDigest(data));
  }
  return report;
}

/**
 * Splits server-sent events out of chunks as they arrive (lines end in LF, CRLF or CR; an
 * empty line ends an event). Bytes are decoded as a stream, so a character split across chunks
 * stays whole. An event larger than `maxEventBytes` stops the reading: `overflowed` says so.
 */
export class SseSplitter {
  readonly #decoder = new TextDecoder('utf-8');
  #pending = '';
  #event = '';
  #data: string[] = [];
  #dataBytes = 0;
  overflowed = false;

  constructor(
    private readonly onEvent: (type: string, data: string) => void,
    private readonly maxEventBytes = 16 * 1024 * 1024,
  ) {}

  push(chunk: Uint8Array): void {
    if (this.overflowed) return;
    this.#pending += this.#decoder.decode(chunk, { stream: true });
    let match: RegExpExecArray | null;
    const lineEnd = /\r\n|\n|\r(?!$)/g;
    let consumed = 0;
    while ((match = lineEnd.exec(this.#pending)) !== null) {
      this.#line(this.#pending.slice(consumed, match.index));
      consumed = match.index + match[0].length;
    }
    this.#pending = this.#pending.slice(consumed);
    if (this.#pending.length > this.maxEventBytes) this.overflowed = true;
  }

  /** The stream ended: a line end held back (a CR that might have begun a CRLF) counts now. */
  end(): void {
    if (this.#pending.endsWith('\r')) this.#line(this.#pending.slice(0, -1));
    this.#pending = '';
  }

  #line(line: string): void {
    if (this.overflowed) return;
    if (line === '') {
      if (this.#data.length > 0) this.onEvent(this.#event || 'message', this.#data.join('\n'));
      this.#event = '';
      this.#data = [];
      this.#dataBytes = 0;
      return;
    }
    const colon = line.indexOf(':');
    const name = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (name === 'event') this.#event = value;
    else if (name === 'data') {
      this.#data.push(value);
      this.#dataBytes += value.length;
      if (this.#dataBytes > this.maxEventBytes) this.overflowed = true;
    }
  }
}

/**
 * How far a proxied request's spend is known. `billable`: the provider took the request and may
 * have billed it (it answered 2xx, or the exchange ended without a definite answer: a timeout
 * after the request was sent, an answer broken off, a client gone). `not_billed`: the provider
 * refused it with a whole error answer, or the request never fully left the gate.
 */
export type Billing = 'billable' | 'not_billed';

/**
 * The figures a proxied request is reconciled with. What the upstream reported counts as
 * reported; a billable request whose figures never arrived counts the missing part at its
 * booking: unknown spend is the worst case, never zero.
 */
export function usageToReconcile(
  report: UsageReport,
  billing: Billing,
  booking: { inputBoundTokens: number; maxOutputTokens: number },
): { input: number; output: number } {
  if (billing === 'not_billed') return { input: 0, output: 0 };
  const reported = reportedTokens(report.usage);
  return {
    input: report.inputReported ? reported.input : booking.inputBoundTokens,
    output: report.outputReported ? reported.output : booking.maxOutputTokens,
  };
}
