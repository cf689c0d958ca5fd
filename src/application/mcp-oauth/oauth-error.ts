/**
 * A refusal in OAuth's own terms (RFC 6749 §5.2, RFC 7591 §3.2.2): the error code a client
 * branches on, and a description naming what was wrong.
 */
type OAuthErrorCode =
  | 'invalid_request'
  | 'invalid_client'
  | 'invalid_grant'
  | 'unauthorized_client'
  | 'unsupported_grant_type'
  | 'unsupported_response_type'
  | 'invalid_scope'
  | 'invalid_target'
  | 'access_denied'
  | 'invalid_redirect_uri'
  | 'invalid_client_metadata'
  | 'temporarily_unavailable';

export class OAuthError extends Error {
  override name = 'OAuthError';
  constructor(
    readonly code: OAuthErrorCode,
    readonly description: string,
    /** 401 for a client that failed to authenticate; 400 for everything else. */
    readonly status = code === 'invalid_client' ? 401 : 400,
  ) {
    super(`${code}: ${description}`);
  }
}
