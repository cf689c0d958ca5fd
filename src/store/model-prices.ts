import type { LongContextTier, ModelPrice, ProviderKind } from '../domain/budget/pricing.js';
import { prepared, type Queryable } from './pool.js';

/** The operator's prices (nano-dollars per token) and each provider's fallback price. */

export interface ModelPriceRow {
  provider_kind: ProviderKind;
  model: string;
  price: ModelPrice;
  updated_at: Date;
}

interface PriceColumns {
  input_nanos: number;
  output_nanos: number;
  cache_write_nanos: number;
  cache_read_nanos: number;
  long_context: LongContextTier[];
}

const priceColumns = 'input_nanos, output_nanos, cache_write_nanos, cache_read_nanos, long_context';

function priceOf(row: PriceColumns): ModelPrice {
  return {
    input: row.input_nanos,
    output: row.output_nanos,
    cache_write: row.cache_write_nanos,
    cache_read: row.cache_read_nanos,
    long_context: row.long_context,
  };
}

const priceValues = (price: ModelPrice) => [
  price.input,
  price.output,
  price.cache_write,
  price.cache_read,
  JSON.stringify(price.long_context),
];

export async function listModelPrices(db: Queryable): Promise<ModelPriceRow[]> {
  const { rows } = await db.query<PriceColumns & Omit<ModelPriceRow, 'price'>>(
    `select provider_kind, model, ${priceColumns}, updated_at from model_prices
     order by provider_kind, model`,
  );
  return rows.map((row) => ({ ...row, price: priceOf(row) }));
}

/** The operator's prices for the names a model is looked up by. */
export async function findModelPrices(
  db: Queryable,
  kind: ProviderKind,
  names: string[],
): Promise<Map<string, ModelPrice>> {
  const { rows } = await db.query<PriceColumns & { model: string }>(
    prepared(
      `select model, ${priceColumns} from model_prices
       where provider_kind = $1 and model = any($2::text[])`,
      [kind, names],
    ),
  );
  return new Map(rows.map((row) => [row.model, priceOf(row)]));
}

/** Sets one model's price; returns whether it replaced an earlier one. */
export async function putModelPrice(
  db: Queryable,
  kind: ProviderKind,
  model: string,
  price: ModelPrice,
): Promise<{ row: ModelPriceRow; replaced: boolean }> {
  const { rows } = await db.query<
    PriceColumns & Omit<ModelPriceRow, 'price'> & { inserted: boolean }
  >(
    `insert into model_prices (provider_kind, model, ${priceColumns})
     values ($1, $2, $3, $4, $5, $6, $7)
     on conflict (provider_kind, model) do update set
       input_nanos = excluded.input_nanos, output_nanos = excluded.output_nanos,
       cache_write_nanos = excluded.cache_write_nanos, cache_read_nanos = excluded.cache_read_nanos,
       long_context = excluded.long_context, updated_at = now()
     returning provider_kind, model, ${priceColumns}, updated_at, (xmax = 0) as inserted`,
    [kind, model, ...priceValues(price)],
  );
  const [row] = rows;
  if (!row) throw new Error('the price was not written');
  return { row: { ...row, price: priceOf(row) }, replaced: !row.inserted };
}

export async function deleteModelPrice(
  db: Queryable,
  kind: ProviderKind,
  model: string,
): Promise<boolean> {
  const { rowCount } = await db.query(
    'delete from model_prices where provider_kind = $1 and model = $2',
    [kind, model],
  );
  return (rowCount ?? 0) > 0;
}

export async function findPriceFallback(
  db: Queryable,
  providerId: string,
): Promise<ModelPrice | undefined> {
  const { rows } = await db.query<PriceColumns>(
    prepared(`select ${priceColumns} from model_price_fallbacks where provider_id = $1`, [
      providerId,
    ]),
  );
  return rows[0] ? priceOf(rows[0]) : undefined;
}

export async function putPriceFallback(
  db: Queryable,
  providerId: string,
  price: ModelPrice,
): Promise<void> {
  await db.query(
    `insert into model_price_fallbacks (provider_id, ${priceColumns})
     values ($1, $2, $3, $4, $5, $6)
     on conflict (provider_id) do update set
       input_nanos = excluded.input_nanos, output_nanos = excluded.output_nanos,
       cache_write_nanos = excluded.cache_write_nanos, cache_read_nanos = excluded.cache_read_nanos,
       long_context = excluded.long_context, updated_at = now()`,
    [providerId, ...priceValues(price)],
  );
}

export async function deletePriceFallback(db: Queryable, providerId: string): Promise<boolean> {
  const { rowCount } = await db.query('delete from model_price_fallbacks where provider_id = $1', [
    providerId,
  ]);
  return (rowCount ?? 0) > 0;
}
