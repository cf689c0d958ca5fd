import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import { redirectUriProblem } from '../../domain/oauth/redirect-uris.js';
import {
  findOAuthClient,
  insertOAuthClient,
  type ClientAuthMethod,
  type OAuthClient,
} from '../../store/oauth-clients.js';
import type { Pool } from '../../store/pool.js';
import { hashToken } from '../tokens.js';
import { OAuthError } from './oauth-error.js';

const text = (max: number) => z.string().max(max);

/**
 * The client metadata the gate understands (RFC 7591 §2). Anything else a client sends is
 * ignored, as §2 asks, and never stored.
 */
const clientMetadataSchema = z.object({
  redirect_uris: z.array(z.string()).min(1).max(10),
  token_endpoint_auth_method: z
    .enum(['none', 'client_secret_post', 'client_secret_basic'])
    .default('client_secret_basic'),
  grant_types: z
    .array(z.enum(['authorization_code', 'refresh_token']))
    .max(2)
    .default(['authorization_code', 'refresh_token']),
  response_types: z.array(z.literal('code')).max(1).default(['code']),
  client_name: text(200).optional(),
  client_uri: text(2000).optional(),
  logo_uri: text(2000).optional(),
  scope: text(1000).optional(),
  software_id: text(200).optional(),
  software_version: text(100).optional(),
});

/** A registered client as RFC 7591 §3.2.1 answers it; the secret only at registration. */
function clientInformation(client: OAuthClient, secret?: string) {
  return {
    client_id: client.client_id,
    client_id_issued_at: Math.floor(client.created_at.getTime() / 1000),
    ...(secret !== undefined && { client_secret: secret, client_secret_expires_at: 0 }),
    ...client.metadata,
  };
}

/** Registers a client (RFC 7591). A confidential one is given a secret, shown once. */
export async function registerClient(pool: Pool, body: unknown) {
  const parsed = clientMetadataSchema.safeParse(body);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const field = issue?.path.join('.') || 'body';
    const code = field.startsWith('redirect_uris')
      ? 'invalid_redirect_uri'
      : 'invalid_client_metadata';
    throw new OAuthError(code, `${field}: ${issue?.message ?? 'not valid'}`);
  }
  const metadata = parsed.data;
  metadata.redirect_uris.forEach((uri, index) => {
    const problem = redirectUriProblem(uri);
    if (problem) throw new OAuthError('invalid_redirect_uri', `redirect_uris[${index}] ${problem}`);
  });
  const method: ClientAuthMethod = metadata.token_endpoint_auth_method;
  const secret = method === 'none' ? undefined : randomBytes(32).toString('base64url');
  const client = await insertOAuthClient(pool, {
    client_id: `fgc_${randomBytes(16).toString('base64url')}`,
    secret_hash: secret === undefined ? null : hashToken(secret),
    redirect_uris: metadata.redirect_uris,
    token_endpoint_auth_method: method,
    metadata,
  });
  return clientInformation(client, secret);
}

/** What a token request presented to say which client it is. */
export interface PresentedClient {
  clientId: string | undefined;
  secret: string | undefined;
  /** How the secret came: the Authorization header (basic) or the body (post). */
  via: 'basic' | 'post' | 'none';
}

/**
 * The client a token request comes from, authenticated as it registered: a public client by its
 * id alone (its codes are held by PKCE), a confidential one by its secret, the way it chose.
 */
export async function authenticateClient(
  pool: Pool,
  presented: PresentedClient,
): Promise<OAuthClient> {
  const refused = () =>
    new OAuthError('invalid_client', 'the client is unknown or its secret is wrong');
  if (presented.clientId === undefined) {
    throw new OAuthError('invalid_client', 'client_id is required');
  }
  const client = await findOAuthClient(pool, presented.clientId);
  if (!client) throw refused();
  const method = client.token_endpoint_auth_method;
  if (method === 'none') {
    if (presented.secret !== undefined) throw refused();
    return client;
  }
  const expectedVia = method === 'client_secret_basic' ? 'basic' : 'post';
  if (presented.via !== expectedVia || presented.secret === undefined || !client.secret_hash) {
    throw refused();
  }
  if (!hashToken(presented.secret).equals(client.secret_hash)) throw refused();
  return client;
}
