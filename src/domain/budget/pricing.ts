/**
 * What a model exchange costs, in nano-dollars (1e-9 USD) as integers: prices are nano-dollars
 * per token, so a cost is a sum of tokens times prices, exact, never rounded. Pure: no I/O.
 */
import shipped from './default-prices.json' with { type: 'json' };

export type ProviderKind = 'anthropic' | 'openai';
export const providerKinds: readonly ProviderKind[] = ['anthropic', 'openai'];

/** Nano-dollars per token of each kind. */
export interface TokenRates {
  input: number;
  output: number;
  cache_write: number;
  cache_read: number;
}

/** A tier applies, to the whole request, when its input passes `above_input_tokens`. */
export interface LongContextTier extends TokenRates {
  above_input_tokens: number;
}

export interface ModelPrice extends TokenRates {
  long_context: LongContextTier[];
}

/** The tokens of an exchange by kind; `input` is the uncached part. */
interface TokenUsage {
  input: number;
  cache_write: number;
  cache_read: number;
  output: number;
}

export const nanosPerUsd = 1_000_000_000;
/** A price per million tokens has at most three decimals: one nano-dollar per token. */
const usdPerMtokPattern = /^(0|[1-9][0-9]{0,5})(\.[0-9]{1,3})?$/;
/** Money in the API: dollars with up to nine decimals (one nano-dollar). */
const usdPattern = /^(0|[1-9][0-9]{0,8})(\.[0-9]{1,9})?$/;

function decimalToInteger(text: string, decimals: number): number {
  const [whole = '0', fraction = ''] = text.split('.');
  return Number(whole) * 10 ** decimals + Number(fraction.padEnd(decimals, '0'));
}

function integerToDecimal(value: number, decimals: number): string {
  const sign = value < 0 ? '-' : '';
  const digits = Math.abs(value)
    .toString()
    .padStart(decimals + 1, '0');
  const whole = digits.slice(0, -decimals);
  const fraction = digits.slice(-decimals).replace(/0+$/, '');
  return `${sign}${whole}${fraction ? `.${fraction}` : ''}`;
}

/** "3.75" USD per million tokens → 3750 nano-dollars per token; undefined when not a price. */
export function parseUsdPerMtok(text: string): number | undefined {
  return usdPerMtokPattern.test(text) ? decimalToInteger(text, 3) : undefined;
}

export function formatUsdPerMtok(nanosPerToken: number): string {
  return integerToDecimal(nanosPerToken, 3);
}

/** "12.5" USD → 12_500_000_000 nano-dollars; undefined when not an amount. */
export function parseUsd(text: string): number | undefined {
  return usdPattern.test(text) ? decimalToInteger(text, 9) : undefined;
}

export function formatUsd(nanos: number): string {
  return integerToDecimal(nanos, 9);
}

function product(tokens: number, rate: number): number {
  const value = tokens * rate;
  // Beyond 2^53 a JavaScript number is no longer an exact integer: refuse rather than round.
  if (!Number.isSafeInteger(value)) throw new RangeError(`a cost of ${value} nanos is too large`);
  return value;
}

function ratesAt(price: ModelPrice, inputTokens: number): TokenRates {
  let rates: TokenRates = price;
  let passed = -1;
  for (const tier of price.long_context) {
    if (inputTokens > tier.above_input_tokens && tier.above_input_tokens > passed) {
      rates = tier;
      passed = tier.above_input_tokens;
    }
  }
  return rates;
}

/**
 * The cost of a reported usage: every input kind (uncached, cache writes, cache reads) counts
 * towards the long-context threshold, and the tier passed prices the whole request.
 */
export function costOf(price: ModelPrice, usage: TokenUsage): number {
  const rates = ratesAt(price, usage.input + usage.cache_write + usage.cache_read);
  return (
    product(usage.input, rates.input) +
    product(usage.cache_write, rates.cache_write) +
    product(usage.cache_read, rates.cache_read) +
    product(usage.output, rates.output)
  );
}

/**
 * The most a request can cost: its input bound at the dearest input kind and its whole output,
 * at the dearest tier its input could reach (any tier below the bound, or none).
 */
export function worstCaseCost(
  price: ModelPrice,
  booking: { inputBoundTokens: number; maxOutputTokens: number },
): number {
  const reachable = [
    price as TokenRates,
    ...price.long_context.filter((t) => booking.inputBoundTokens > t.above_input_tokens),
  ];
  return Math.max(
    ...reachable.map(
      (rates) =>
        product(
          booking.inputBoundTokens,
          Math.max(rates.input, rates.cache_write, rates.cache_read),
        ) + product(booking.maxOutputTokens, rates.output),
    ),
  );
}

/**
 * The cost a settlement records. Parts the upstream never reported count at their worst case:
 * unknown spend is never zero. The result never exceeds the worst case for honest figures.
 */
export function settlementCost(
  price: ModelPrice,
  reported: { usage: TokenUsage; inputReported: boolean; outputReported: boolean },
  booking: { inputBoundTokens: number; maxOutputTokens: number },
): number {
  if (!reported.inputReported) {
    return worstCaseCost(price, {
      inputBoundTokens: booking.inputBoundTokens,
      maxOutputTokens: reported.outputReported ? reported.usage.output : booking.maxOutputTokens,
    });
  }
  return costOf(price, {
    ...reported.usage,
    output: reported.outputReported ? reported.usage.output : booking.maxOutputTokens,
  });
}

interface ShippedRates {
  input: string;
  output: string;
  cache_write: string;
  cache_read: string;
}

function ratesFromText(rates: ShippedRates): TokenRates {
  const read = (text: string) => {
    const value = parseUsdPerMtok(text);
    if (value === undefined) throw new Error(`default-prices.json: ${text} is not a price`);
    return value;
  };
  return {
    input: read(rates.input),
    output: read(rates.output),
    cache_write: read(rates.cache_write),
    cache_read: read(rates.cache_read),
  };
}

interface ShippedPrice {
  provider: ProviderKind;
  model: string;
  price: ModelPrice;
}

/** The prices shipped with the gate, with the date they were read and where. */
export const defaultPrices: {
  sources: Record<ProviderKind, { as_of: string; url: string }>;
  prices: ShippedPrice[];
} = {
  sources: shipped.sources,
  prices: shipped.prices.map((entry) => ({
    provider: entry.provider as ProviderKind,
    model: entry.model,
    price: {
      ...ratesFromText(entry),
      long_context: (
        (entry as { long_context?: (ShippedRates & { above_input_tokens: number })[] })
          .long_context ?? []
      ).map((tier) => ({
        above_input_tokens: tier.above_input_tokens,
        ...ratesFromText(tier),
      })),
    },
  })),
};

/**
 * The names a model is looked up by, most specific first: as written, then, for Anthropic,
 * without its release date (`claude-sonnet-4-5-20250929` is priced as `claude-sonnet-4-5`: its
 * dated ids are the alias's model). An OpenAI snapshot may cost other than its alias
 * (`gpt-4o-2024-05-13`), so it is priced under its own name only.
 */
export function priceLookupNames(kind: ProviderKind, model: string): string[] {
  if (kind !== 'anthropic') return [model];
  const undated = model.replace(/-(20[0-9]{6}|[0-9]{4}-[0-9]{2}-[0-9]{2})$/, '');
  return undated === model ? [model] : [model, undated];
}

type PriceSource = 'operator' | 'default' | 'fallback';

/**
 * The price of a model: the operator's entry, else the shipped default, tried under each lookup
 * name in turn; else the provider's fallback if the operator named one; else none (refused).
 */
export function resolvePrice(
  kind: ProviderKind,
  model: string,
  operator: (kind: ProviderKind, model: string) => ModelPrice | undefined,
  fallback: ModelPrice | undefined,
): { price: ModelPrice; source: PriceSource } | undefined {
  for (const name of priceLookupNames(kind, model)) {
    const own = operator(kind, name);
    if (own) return { price: own, source: 'operator' };
    const shippedPrice = defaultPrices.prices.find((p) => p.provider === kind && p.model === name);
    if (shippedPrice) return { price: shippedPrice.price, source: 'default' };
  }
  return fallback ? { price: fallback, source: 'fallback' } : undefined;
}
