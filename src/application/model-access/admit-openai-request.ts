import {
  defaultMaxOutputTokens,
  forwardedBody,
  parseOpenAIRequest,
  type OpenAIEndpoint,
  type OpenAIRequest,
  type OpenAIRequestParse,
} from '../../domain/budget/openai-request.js';
import { contextWindowCeiling, type InputBound } from '../../domain/budget/input-token-bound.js';
import type { ReservationRow } from '../../store/budget.js';
import { findThinkingOrigins } from '../../store/model-thinking-blocks.js';
import type { ModelProviderRow } from '../../store/model-providers.js';
import type { Pool } from '../../store/pool.js';
import type { FrozenRun } from '../../store/runs.js';
import { bookProxiedRequest } from './admit-proxied-request.js';

type OpenAIAdmission =
  | { kind: 'admitted'; reservation: ReservationRow; request: OpenAIRequest; forwarded: Buffer }
  | { kind: 'invalid'; message: string; param?: string }
  | { kind: 'never_fits'; message: string; param?: string }
  | { kind: 'unpriced'; message: string }
  | { kind: 'exhausted'; message: string; level: string };

/**
 * Reasoning items sent back cost at most the output of the response the gate saw produce them,
 * counted once per response; one it did not see, or one sent twice, is bounded by nothing.
 */
async function withReasoning(
  pool: Pool,
  run: FrozenRun,
  request: OpenAIRequest,
): Promise<InputBound> {
  const { input, reasoning } = request;
  if (reasoning.length === 0) return input;
  const origins = await findThinkingOrigins(
    pool,
    run.workspace_id,
    reasoning.map((r) => r.digest),
  );
  const responses = new Map<string, number>();
  const seen = new Set<string>();
  const unbounded = [...input.unbounded];
  for (const { digest, path } of reasoning) {
    const origin = origins.get(digest);
    if (seen.has(digest)) unbounded.push(`${path}: a reasoning item sent twice`);
    else if (!origin) unbounded.push(`${path}: a reasoning item this gate did not see produced`);
    else responses.set(origin.response, origin.outputTokens);
    seen.add(digest);
  }
  if (unbounded.length > 0) return { tokens: contextWindowCeiling, unbounded };
  const tokens = [...responses.values()].reduce((sum, t) => sum + t, input.tokens);
  return { tokens, unbounded: [] };
}

/**
 * Admission of a Chat Completions or Responses request the gate will forward: read and bounded
 * (openai-request.ts), its image addresses refused unless the provider allows them, its output
 * limit made explicit (the client's, or the gate's default within the run's allowance), and
 * booked like any proxied request: the forwarded body's worst case. `parsed` is `raw` parsed,
 * when the caller parsed it already.
 */
export async function admitOpenAIRequest(
  pool: Pool,
  run: FrozenRun,
  provider: ModelProviderRow,
  raw: Buffer,
  endpoint: OpenAIEndpoint,
  priceEpoch?: number,
  parsed: OpenAIRequestParse = parseOpenAIRequest(raw, endpoint),
): Promise<OpenAIAdmission> {
  if (!parsed.ok) return { kind: 'invalid', message: parsed.message, param: parsed.path };
  const { request } = parsed;
  const [urlImage] = provider.allow_url_sources ? [] : request.urlImages;
  if (urlImage !== undefined) {
    return {
      kind: 'invalid',
      param: urlImage,
      message: `${urlImage}: an image URL is refused: the provider would fetch whatever address the model wrote; send the image inline as a data: URL, or have the operator allow URL sources for this provider`,
    };
  }
  const bound = await withReasoning(pool, run, request);
  const why =
    bound.unbounded.length > 0
      ? ` (${bound.unbounded.join('; ')}: a part without a bound of its own counts the largest context window)`
      : '';
  const room = run.max_tokens - bound.tokens;
  const perChoice = request.askedMaxOutput ?? Math.min(defaultMaxOutputTokens, room);
  const maxOutputTokens = perChoice * request.choices;
  const limitName =
    endpoint === 'responses'
      ? 'max_output_tokens'
      : typeof request.body.max_tokens === 'number'
        ? 'max_tokens'
        : 'max_completion_tokens';
  const choices = request.choices > 1 ? ` times n ${request.choices}` : '';
  const asked = `${limitName} ${perChoice}${choices} plus an input bound of ${bound.tokens}${why}`;
  if (perChoice < 1 || bound.tokens + maxOutputTokens > run.max_tokens) {
    return {
      kind: 'never_fits',
      param: request.askedMaxOutput === undefined ? 'input' : limitName,
      message: `${asked} is more than the run's whole allowance of ${run.max_tokens} tokens`,
    };
  }
  const forwarded = forwardedBody(request, perChoice);
  const booked = await bookProxiedRequest(pool, run, provider, {
    forwarded,
    model: request.model,
    maxOutputTokens,
    inputBoundTokens: bound.tokens,
    asked,
    priceEpoch,
  });
  return booked.kind === 'admitted' ? { ...booked, request, forwarded } : booked;
}
