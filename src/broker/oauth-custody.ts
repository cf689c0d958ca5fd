import type { OAuthDiscoveryState } from '@modelcontextprotocol/sdk/client/auth.js';
import type {
  OAuthClientInformationMixed,
  OAuthTokens,
} from '@modelcontextprotocol/sdk/shared/auth.js';

/**
 * What the gate holds, sealed, for a connection its owner authorizes through OAuth: the client it
 * presents (given at creation or registered dynamically), where the authorization server is, and
 * the tokens once the owner has authorized. Nothing of it is ever shown.
 */
export interface OAuthCustody {
  type: 'oauth';
  client?: OAuthClientInformationMixed;
  discovery?: OAuthDiscoveryState;
  tokens?: OAuthTokens;
  /** When the access token expires (epoch ms); absent when the server did not say. */
  expires_at?: number;
  /** The operator said the server, named by a host, is on a private network (see address-reach). */
  private_network?: true;
  /** The authorization server (its issuer) the client belongs to: the first it was used with. */
  client_issuer?: string;
}

/** One authorization a person started: the PKCE verifier and the client it was started with. */
export interface OAuthAttempt {
  type: 'oauth_attempt';
  verifier: string;
  client: OAuthClientInformationMixed;
  discovery: OAuthDiscoveryState;
}
