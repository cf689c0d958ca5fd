import {
  providerColumnsOf,
  splitProvider,
  type ModelProviderColumns,
  type ModelProviderRow,
} from './model-providers.js';
import { prepared, type Queryable } from './pool.js';
import { runColumnsOf, runStoppedSql, type FrozenRun, type KnownRuns } from './runs.js';

/** Who calls a model endpoint: a run, and the model provider frozen with it (if any). */
export interface ModelCaller {
  run: FrozenRun;
  /** Undefined when the run was created without one. */
  provider: ModelProviderRow | undefined;
  /** How many times the prices changed, as this read found it (`model_price_epoch`). */
  priceEpoch: number;
}

/**
 * The run a session token acts for and its model provider, in one read: the first of a model
 * request's round trips, and the only one before its body is read. A stopped run's token finds
 * nothing. A run `known` keeps is not read again (only its id, found while it still acts); the
 * provider, which its operator may change, always is; and the prices' epoch, which says whether
 * prices this process kept are still the table's.
 */
export async function findModelCallerBySessionTokenHash(
  db: Queryable,
  tokenHash: Buffer,
  known?: KnownRuns,
): Promise<ModelCaller | undefined> {
  const kept = known?.get(tokenHash);
  const { rows } = await db.query<FrozenRun & ModelProviderColumns & { price_epoch: number }>(
    prepared(
      `select ${kept ? 'r.id' : runColumnsOf('r')}, ${providerColumnsOf('p')},
         (select epoch from model_price_epoch) as price_epoch
       from runs r left join model_providers p on p.id = r.model_provider_id
       where r.session_token_hash = $1 and not ${runStoppedSql('r')}`,
      [tokenHash],
    ),
  );
  const [found] = rows;
  if (!found) {
    // A kept run whose token now finds nothing is forgotten.
    known?.confirm(tokenHash, kept, undefined);
    return undefined;
  }
  const { price_epoch: priceEpoch, ...row } = found;
  const { provider, rest } = splitProvider(row);
  const run = known ? known.confirm(tokenHash, kept, rest) : rest;
  return run && { run, provider, priceEpoch };
}
