/**
 * Why photographing an MCP server's tools failed:
 * - `invalid_request`: the URL, token or command cannot be used as given;
 * - `unreachable`: no connection could be made, or the command could not be started;
 * - `unauthorized`: the server refused the credential (HTTP 401 or 403);
 * - `timeout`: the whole photograph took longer than its bound;
 * - `too_large`: too many tools, pages or bytes;
 * - `redirected`: the server answered with a redirect (3xx), which is never followed;
 * - `protocol`: the server answered, but not with a usable `tools/list`.
 */
export type PhotographErrorCode =
  | 'invalid_request'
  | 'unreachable'
  | 'unauthorized'
  | 'timeout'
  | 'too_large'
  | 'redirected'
  | 'protocol';

/** A failed photograph. The message never contains the credential or the secrets passed in. */
export class PhotographError extends Error {
  override name = 'PhotographError';
  readonly code: PhotographErrorCode;
  /** What a stdio server wrote to stderr, capped and redacted; absent for HTTP. */
  stderr: string | undefined;

  constructor(code: PhotographErrorCode, message: string, stderr?: string) {
    super(message);
    this.code = code;
    this.stderr = stderr;
  }
}
