/**
 * The gate's names in OAuth: its remote MCP endpoint is the protected resource, the gate itself
 * its authorization server, both under the public URL people and clients reach it by.
 */
export interface OAuthNames {
  /** The authorization server's issuer identifier: the public URL, without a trailing slash. */
  issuer: string;
  /** The resource indicator (RFC 8707) of `/mcp`: the audience of every access token. */
  resource: string;
}

export function oauthNames(publicUrl: string): OAuthNames {
  const issuer = publicUrl.replace(/\/+$/, '');
  return { issuer, resource: `${issuer}/mcp` };
}

/** A presented resource indicator names this one: compared as URLs, a trailing slash aside. */
export function sameResource(presented: string, resource: string): boolean {
  try {
    const canonical = (text: string) => new URL(text).href.replace(/\/+$/, '');
    return canonical(presented) === canonical(resource);
  } catch {
    return false;
  }
}
