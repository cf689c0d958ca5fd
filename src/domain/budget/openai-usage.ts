/**
 * What an OpenAI answer says it used, read from the bytes passed through: a Chat Completions
 * stream's usage chunk (asked for with `stream_options.include_usage`), a Responses stream's
 * final event (`response.completed`, `response.incomplete`, `response.failed`), or the `usage` of
 * a JSON answer. Reasoning items a response produced are collected, so they can be bounded when
 * they are sent back. Pure: no I/O.
 *
 * OpenAI counts cached input inside the input figure (`prompt_tokens_details.cached_tokens`) and
 * reasoning inside the output figure; the report keeps the cached part apart as cache reads, so
 * the input it counts is the provider's input figure. A report whose input is zero is no report:
 * every request has input, so a zero says nothing about what was spent, and the booking counts.
 */
import { reasoningKey } from './openai-request.js';
import { thinkingDigest } from './thinking-origins.js';
import { emptyReport, type UsageReport } from './upstream-usage.js';

type Json = Record<string, unknown>;
const field = (value: unknown, name: string): unknown =>
  typeof value === 'object' && value !== null ? (value as Json)[name] : undefined;
const figure = (value: unknown): number | undefined =>
  typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 ? value : undefined;

/** Takes OpenAI's usage (either API's names); false when it says nothing usable. */
function takeUsage(report: UsageReport, usage: unknown): boolean {
  const input = figure(field(usage, 'prompt_tokens') ?? field(usage, 'input_tokens'));
  const output = figure(field(usage, 'completion_tokens') ?? field(usage, 'output_tokens'));
  if (input === undefined || input === 0) return false;
  const details = field(usage, 'prompt_tokens_details') ?? field(usage, 'input_tokens_details');
  const cached = Math.min(figure(field(details, 'cached_tokens')) ?? 0, input);
  report.usage.input_tokens = input - cached;
  report.usage.cache_read_input_tokens = cached;
  report.usage.cache_creation_input_tokens = 0;
  report.inputReported = true;
  if (output !== undefined) {
    report.usage.output_tokens = output;
    report.outputReported = true;
  }
  return true;
}

function takeReasoning(report: UsageReport, items: unknown): void {
  const list: unknown[] = Array.isArray(items) ? (items as unknown[]) : [items];
  for (const item of list) {
    if (field(item, 'type') !== 'reasoning') continue;
    const id = field(item, 'id');
    const encrypted = field(item, 'encrypted_content');
    const key = {
      id: typeof id === 'string' ? id : undefined,
      encrypted_content: typeof encrypted === 'string' ? encrypted : null,
    };
    if (key.id || key.encrypted_content) {
      // Either may be sent back: the stored item by its id, or its encrypted content.
      if (key.id) report.thinking.push(thinkingDigest(reasoningKey({ id: key.id })));
      if (key.encrypted_content) report.thinking.push(thinkingDigest(reasoningKey(key)));
    }
  }
}

function parse(data: string): unknown {
  try {
    return JSON.parse(data);
  } catch {
    return undefined;
  }
}

/** Follows a Chat Completions stream: `data:` chunks, then `data: [DONE]`. */
export class ChatStreamUsageReader {
  readonly report = emptyReport();
  #ending = false;

  /** Reads one event; true once the stream's end has begun (a choice finished, or usage). */
  event(_type: string, data: string): boolean {
    if (data === '[DONE]') {
      this.report.complete = true;
      return true;
    }
    // Content deltas are most of a stream and say nothing about usage or its end.
    if (
      !this.#ending &&
      !/"finish_reason"\s*:\s*"/.test(data) &&
      !data.includes('"usage"') &&
      !data.includes('"error"')
    )
      return false;
    const chunk = parse(data);
    if (field(chunk, 'error') !== undefined) this.report.errored = true;
    if (takeUsage(this.report, field(chunk, 'usage'))) this.#ending = true;
    const choices = field(chunk, 'choices');
    if (
      Array.isArray(choices) &&
      choices.some((c) => typeof field(c, 'finish_reason') === 'string')
    )
      this.#ending = true;
    return this.#ending;
  }
}

/** Follows a Responses stream: typed events, its usage on the final one. */
export class ResponsesStreamUsageReader {
  readonly report = emptyReport();
  #ending = false;

  event(type: string, data: string): boolean {
    if (
      type === 'response.output_text.delta' ||
      data.startsWith('{"type":"response.output_text.delta"')
    )
      return this.#ending;
    const event = parse(data);
    const kind = field(event, 'type') ?? type;
    if (kind === 'response.output_item.done') takeReasoning(this.report, field(event, 'item'));
    if (kind === 'error') this.report.errored = true;
    if (
      kind === 'response.completed' ||
      kind === 'response.incomplete' ||
      kind === 'response.failed'
    ) {
      const response = field(event, 'response');
      takeUsage(this.report, field(response, 'usage'));
      this.report.complete = kind !== 'response.failed';
      if (kind === 'response.failed') this.report.errored = true;
      this.#ending = true;
    }
    return this.#ending;
  }
}

/** The report of a JSON answer of either API. */
export function readOpenAIJsonAnswer(body: string): UsageReport {
  const report = emptyReport();
  const parsed = parse(body);
  if (takeUsage(report, field(parsed, 'usage'))) report.complete = true;
  takeReasoning(report, field(parsed, 'output'));
  return report;
}
