import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  defaultPrices,
  formatUsdPerMtok,
  parseUsdPerMtok,
  providerKinds,
  type ModelPrice,
  type TokenRates,
} from '../../domain/budget/pricing.js';
import {
  removeFallbackPrice,
  removeModelPrice,
  setFallbackPrice,
  setModelPrice,
} from '../../application/model-access/model-prices.js';
import { findPriceFallback, listModelPrices } from '../../store/queries/model-prices.js';
import type { ApiContext } from '../context.js';
import { notFound } from '../problem.js';
import { empty, json, timestamp } from '../route-schemas.js';

/** Prices in the API: US dollars per million tokens, as a decimal string (at most 3 decimals). */
const usdPerMtok = z
  .string()
  .regex(
    /^(0|[1-9][0-9]{0,5})(\.[0-9]{1,3})?$/,
    'must be US dollars per million tokens, e.g. "3.75", at most 3 decimals',
  );

const rates = {
  input: usdPerMtok,
  output: usdPerMtok,
  cache_write: usdPerMtok,
  cache_read: usdPerMtok,
};

const priceBody = z
  .object({
    ...rates,
    long_context: z
      .array(
        z
          .object({ above_input_tokens: z.number().int().min(1).max(100_000_000), ...rates })
          .strict(),
      )
      .max(8)
      .refine(
        (tiers) => new Set(tiers.map((t) => t.above_input_tokens)).size === tiers.length,
        'must not repeat a threshold',
      )
      .default([]),
  })
  .strict();

const priceAnswerFields = {
  input: z.string(),
  output: z.string(),
  cache_write: z.string(),
  cache_read: z.string(),
  long_context: z.array(
    z.object({
      above_input_tokens: z.number().int(),
      input: z.string(),
      output: z.string(),
      cache_write: z.string(),
      cache_read: z.string(),
    }),
  ),
};

const priceAnswer = z.object({
  provider: z.enum(providerKinds),
  model: z.string(),
  /** `operator`: set through this API; `default`: shipped with the gate (see `defaults`). */
  source: z.enum(['operator', 'default']),
  ...priceAnswerFields,
  updated_at: timestamp.nullable(),
});

const priceListAnswer = z.object({
  unit: z.literal('USD per million tokens'),
  prices: z.array(priceAnswer),
  /** Where the shipped prices come from and the day they were read there. */
  defaults: z.record(z.string(), z.object({ as_of: z.string(), url: z.string() })),
});

const fallbackAnswer = z.object({ provider: z.uuid(), ...priceAnswerFields });

const priceParams = z
  .object({
    provider: z.enum(providerKinds),
    model: z
      .string()
      .regex(/^[A-Za-z0-9._:@-]{1,128}$/, 'must be a model id: letters, digits and ._:@-'),
  })
  .strict();
const providerParams = z.object({ id: z.uuid() }).strict();

const ratesOf = (body: Record<keyof TokenRates, string>): TokenRates => ({
  input: parseUsdPerMtok(body.input) ?? 0,
  output: parseUsdPerMtok(body.output) ?? 0,
  cache_write: parseUsdPerMtok(body.cache_write) ?? 0,
  cache_read: parseUsdPerMtok(body.cache_read) ?? 0,
});

function priceOf(body: z.infer<typeof priceBody>): ModelPrice {
  return {
    ...ratesOf(body),
    long_context: body.long_context.map((tier) => ({
      above_input_tokens: tier.above_input_tokens,
      ...ratesOf(tier),
    })),
  };
}

const textRates = (r: TokenRates) => ({
  input: formatUsdPerMtok(r.input),
  output: formatUsdPerMtok(r.output),
  cache_write: formatUsdPerMtok(r.cache_write),
  cache_read: formatUsdPerMtok(r.cache_read),
});

function priceText(price: ModelPrice) {
  return {
    ...textRates(price),
    long_context: price.long_context.map((tier) => ({
      above_input_tokens: tier.above_input_tokens,
      ...textRates(tier),
    })),
  };
}

const tags = ['model access'];
const config = { caller: 'operator' } as const;

export function modelPriceRoutes(server: FastifyInstance, ctx: ApiContext) {
  const app = server.withTypeProvider<ZodTypeProvider>();

  app.get(
    '/v1/model-prices',
    {
      config,
      schema: {
        operationId: 'listModelPrices',
        summary:
          "The price table: the operator's prices, then the shipped defaults they do not replace",
        tags,
        response: { 200: json('the price table', priceListAnswer) },
      },
    },
    async () => {
      const own = await listModelPrices(ctx.pool);
      const set = new Set(own.map((row) => `${row.provider_kind}/${row.model}`));
      return {
        unit: 'USD per million tokens' as const,
        prices: [
          ...own.map((row) => ({
            provider: row.provider_kind,
            model: row.model,
            source: 'operator' as const,
            ...priceText(row.price),
            updated_at: row.updated_at,
          })),
          ...defaultPrices.prices
            .filter((entry) => !set.has(`${entry.provider}/${entry.model}`))
            .map((entry) => ({
              provider: entry.provider,
              model: entry.model,
              source: 'default' as const,
              ...priceText(entry.price),
              updated_at: null,
            })),
        ],
        defaults: defaultPrices.sources,
      };
    },
  );

  app.put(
    '/v1/model-prices/:provider/:model',
    {
      config,
      schema: {
        operationId: 'setModelPrice',
        summary:
          "Set a model's price, in place of the shipped default; requests admitted from now on pay it",
        tags,
        params: priceParams,
        body: priceBody,
        response: {
          200: json('replaced', priceAnswer),
          201: json('set', priceAnswer),
        },
      },
    },
    async (request, reply) => {
      const { provider, model } = request.params;
      const { row, replaced } = await setModelPrice(
        ctx.pool,
        provider,
        model,
        priceOf(request.body),
      );
      return reply.code(replaced ? 200 : 201).send({
        provider: row.provider_kind,
        model: row.model,
        source: 'operator' as const,
        ...priceText(row.price),
        updated_at: row.updated_at,
      });
    },
  );

  app.delete(
    '/v1/model-prices/:provider/:model',
    {
      config,
      schema: {
        operationId: 'deleteModelPrice',
        summary: "Remove the operator's price: the shipped default applies again, or none",
        tags,
        params: priceParams,
        response: { 204: empty('removed') },
      },
    },
    async (request, reply) => {
      const { provider, model } = request.params;
      if (!(await removeModelPrice(ctx.pool, provider, model)))
        throw notFound(`an operator's price for ${provider} model ${model}`);
      return reply.code(204).send(null);
    },
  );

  app.get(
    '/v1/model-providers/:id/fallback-price',
    {
      config,
      schema: {
        operationId: 'getModelProviderFallbackPrice',
        summary: "What a provider's models without a price are charged at",
        tags,
        params: providerParams,
        response: { 200: json('the fallback price', fallbackAnswer) },
      },
    },
    async (request) => {
      const { id } = request.params;
      const price = await findPriceFallback(ctx.pool, id);
      if (!price) throw notFound(`a fallback price for model provider ${id}`);
      return { provider: id, ...priceText(price) };
    },
  );

  app.put(
    '/v1/model-providers/:id/fallback-price',
    {
      config,
      schema: {
        operationId: 'setModelProviderFallbackPrice',
        summary:
          "Charge a provider's models without a price at this price, instead of refusing them",
        tags,
        params: providerParams,
        body: priceBody,
        response: { 200: json('the fallback price', fallbackAnswer) },
      },
    },
    async (request) => {
      const { id } = request.params;
      const price = priceOf(request.body);
      if (!(await setFallbackPrice(ctx.pool, id, price))) throw notFound(`model provider ${id}`);
      return { provider: id, ...priceText(price) };
    },
  );

  app.delete(
    '/v1/model-providers/:id/fallback-price',
    {
      config,
      schema: {
        operationId: 'deleteModelProviderFallbackPrice',
        summary: "Refuse a provider's models without a price again",
        tags,
        params: providerParams,
        response: { 204: empty('removed') },
      },
    },
    async (request, reply) => {
      const { id } = request.params;
      if (!(await removeFallbackPrice(ctx.pool, id)))
        throw notFound(`a fallback price for model provider ${id}`);
      return reply.code(204).send(null);
    },
  );
}
