import type { Queryable } from './pool.js';

export interface ModelProviderRow {
  id: string;
  workspace_id: string;
  name: string;
  kind: 'anthropic';
  base_url: string;
  sealed_credential: Buffer;
  /** Whether image and document sources may be URLs the provider fetches itself. */
  allow_url_sources: boolean;
  created_at: Date;
}

const columns =
  'id, workspace_id, name, kind, base_url, sealed_credential, allow_url_sources, created_at';

/** Returns undefined when the workspace already has a provider of that name. */
export async function insertModelProvider(
  db: Queryable,
  provider: Omit<ModelProviderRow, 'created_at'>,
): Promise<ModelProviderRow | undefined> {
  const { rows } = await db.query<ModelProviderRow>(
    `insert into model_providers (id, workspace_id, name, kind, base_url, sealed_credential,
       allow_url_sources)
     values ($1, $2, $3, $4, $5, $6, $7)
     on conflict (workspace_id, name) do nothing
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
