import type { Queryable } from './pool.js';

/** Which API the provider speaks, and so which of the gate's model endpoints reaches it. */
export type ModelProviderKind = 'anthropic' | 'openai';

export interface ModelProviderRow {
  id: string;
  workspace_id: string;
  name: string;
  kind: ModelProviderKind;
  base_url: string;
  sealed_credential: Buffer;
  /** Whether image and document sources may be URLs the provider fetches itself. */
  allow_url_sources: boolean;
  created_at: Date;
  /** Set once the operator removed it: no request reaches it again. */
  removed_at: Date | null;
}

const columnNames = [
  'id',
  'workspace_id',
  'name',
  'kind',
  'base_url',
  'sealed_credential',
  'allow_url_sources',
  'created_at',
  'removed_at',
] as const;
const columns = columnNames.join(', ');

/** A provider's columns read beside another table's, each named `provider_` and its own name. */
export type ModelProviderColumns = {
  [K in keyof ModelProviderRow as `provider_${K}`]: ModelProviderRow[K] | null;
};

/** The columns of a `ModelProviderRow` from `alias`, for a query that joins the table. */
export const providerColumnsOf = (alias: string) =>
  columnNames.map((column) => `${alias}.${column} as provider_${column}`).join(', ');

/**
 * The provider a joined row holds (providerColumnsOf), and the rest of the row; no provider when
 * the join found none.
 */
export function splitProvider<Row extends ModelProviderColumns>(
  row: Row,
): { provider: ModelProviderRow | undefined; rest: Omit<Row, keyof ModelProviderColumns> } {
  const provider = Object.fromEntries(
    columnNames.map((column) => [column, row[`provider_${column}`]]),
  );
  const rest = Object.fromEntries(
    Object.entries(row).filter(([key]) => !key.startsWith('provider_')),
  );
  return {
    provider: provider.id === null ? undefined : (provider as unknown as ModelProviderRow),
    rest: rest as Omit<Row, keyof ModelProviderColumns>,
  };
}

/** Returns undefined when the workspace already has a provider of that name in use. */
export async function insertModelProvider(
  db: Queryable,
  provider: Omit<ModelProviderRow, 'created_at' | 'removed_at'>,
): Promise<ModelProviderRow | undefined> {
  const { rows } = await db.query<ModelProviderRow>(
    `insert into model_providers (id, workspace_id, name, kind, base_url, sealed_credential,
       allow_url_sources)
     values ($1, $2, $3, $4, $5, $6, $7)
     on conflict (workspace_id, name) where removed_at is null do nothing
     returning ${columns}`,
    [
      provider.id,
      provider.workspace_id,
      provider.name,
      provider.kind,
      provider.base_url,
      provider.sealed_credential,
      provider.allow_url_sources,
    ],
  );
  return rows[0];
}

export async function findModelProvider(
  db: Queryable,
  id: string,
): Promise<ModelProviderRow | undefined> {
  const { rows } = await db.query<ModelProviderRow>(
    `select ${columns} from model_providers where id = $1`,
    [id],
  );
  return rows[0];
}

/** A new sealed key for a provider still in use; undefined when it is unknown or removed. */
export async function replaceModelProviderCredential(
  db: Queryable,
  id: string,
  sealedCredential: Buffer,
): Promise<ModelProviderRow | undefined> {
  const { rows } = await db.query<ModelProviderRow>(
    `update model_providers set sealed_credential = $2
     where id = $1 and removed_at is null
     returning ${columns}`,
    [id, sealedCredential],
  );
  return rows[0];
}

/** Marks a provider removed (once: a second removal keeps the first time); undefined when unknown. */
export async function removeModelProvider(
  db: Queryable,
  id: string,
): Promise<ModelProviderRow | undefined> {
  const { rows } = await db.query<ModelProviderRow>(
    `update model_providers set removed_at = coalesce(removed_at, now())
     where id = $1
     returning ${columns}`,
    [id],
  );
  return rows[0];
}
