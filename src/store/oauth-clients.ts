import type { Queryable } from './pool.js';

export type ClientAuthMethod = 'none' | 'client_secret_post' | 'client_secret_basic';

/** A client that registered itself (RFC 7591); its secret, if any, only as its SHA-256. */
export interface OAuthClient {
  client_id: string;
  secret_hash: Buffer | null;
  redirect_uris: string[];
  token_endpoint_auth_method: ClientAuthMethod;
  /** The metadata it registered, as it is answered back (never the secret). */
  metadata: Record<string, unknown>;
  created_at: Date;
}

const columns =
  'client_id, secret_hash, redirect_uris, token_endpoint_auth_method, metadata, created_at';

export async function insertOAuthClient(
  db: Queryable,
  client: Omit<OAuthClient, 'created_at'>,
): Promise<OAuthClient> {
  const { rows } = await db.query<OAuthClient>(
    `insert into oauth_clients (client_id, secret_hash, redirect_uris, token_endpoint_auth_method, metadata)
     values ($1, $2, $3, $4, $5) returning ${columns}`,
    [
      client.client_id,
      client.secret_hash,
      client.redirect_uris,
      client.token_endpoint_auth_method,
      JSON.stringify(client.metadata),
    ],
  );
  return rows[0] as OAuthClient;
}

export async function findOAuthClient(
  db: Queryable,
  clientId: string,
): Promise<OAuthClient | undefined> {
  const { rows } = await db.query<OAuthClient>(
    `select ${columns} from oauth_clients where client_id = $1`,
    [clientId],
  );
  return rows[0];
}
