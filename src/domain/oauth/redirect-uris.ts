/**
 * Where an authorization may send a person's browser back with a code. Registered whole and
 * compared whole (OAuth 2.1): https anywhere; http only to this machine (a native client's
 * loopback listener, RFC 8252 §7.3); a private-use scheme in reverse-domain form (§7.1). No
 * fragment, no credentials in the URL, no scheme a browser runs as code or reads from disk.
 */
const refusedSchemes = new Set(['javascript:', 'data:', 'file:', 'vbscript:', 'blob:', 'about:']);
const loopbackHosts = new Set(['127.0.0.1', '[::1]', 'localhost']);

export function redirectUriProblem(text: string): string | undefined {
  if (text.length > 1000) return 'is longer than 1000 characters';
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return 'is not an absolute URL';
  }
  if (url.hash !== '' || text.includes('#')) return 'must not have a fragment';
  if (url.username !== '' || url.password !== '') return 'must not hold credentials';
  if (url.protocol === 'https:') return url.hostname === '' ? 'must name a host' : undefined;
  if (url.protocol === 'http:') {
    return loopbackHosts.has(url.hostname)
      ? undefined
      : 'http is allowed only to the loopback address (127.0.0.1, [::1], localhost)';
  }
  if (refusedSchemes.has(url.protocol)) return `the scheme ${url.protocol} is not allowed`;
  return /^[a-z][a-z0-9+-]*(\.[a-z0-9+-]+)+:$/.test(url.protocol)
    ? undefined
    : 'a private-use scheme must be in reverse-domain form (com.example.app:)';
}

/** A loopback URI without its port, which a native client picks when it listens (RFC 8252 §7.3). */
function loopbackWithoutPort(text: string): string | undefined {
  try {
    const url = new URL(text);
    if (url.protocol !== 'http:' || !loopbackHosts.has(url.hostname)) return undefined;
    url.port = '';
    return url.href;
  } catch {
    return undefined;
  }
}

/**
 * The URI this request's `redirect_uri` names: one registered, compared whole, but for a loopback
 * URI's port. With one URI registered the request may leave it out.
 */
export function registeredRedirect(
  registered: readonly string[],
  requested: string | undefined,
): string | undefined {
  if (requested === undefined) return registered.length === 1 ? registered[0] : undefined;
  if (registered.includes(requested)) return requested;
  const portless = loopbackWithoutPort(requested);
  return portless !== undefined && registered.some((r) => loopbackWithoutPort(r) === portless)
    ? requested
    : undefined;
}
