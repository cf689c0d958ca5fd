import { GateError } from '../domain/errors.js';
/**
 * Why photographing an MCP server's tools failed:
 * - `invalid_request`: the URL, token or command cannot be used as given;
 * - `unreachable`: no connection could be made, or the command could not be started;
 * - `refused_address`: the server's name resolved to an address the connection may not reach;
 * - `unauthorized`: the server refused the credential (HTTP 401 or 403);
 * - `timeout`: the whole photograph took longer than its bound;
 * - `too_large`: too many tools, pages or bytes;
 * - `redirected`: the server answered with a redirect (3xx), which is never followed;
 * - `protocol`: the server answered, but not with a usable `tools/list`.
 */
export type PhotographErrorCode =
  | 'invalid_request'
  | 'unreachable'
  | 'refused_address'
  | 'unauthorized'
  | 'timeout'
  | 'too_large'
  | 'redirected'
  | 'protocol';

/** A failed photograph. The message never contains the credential or the secrets passed in. */
export class PhotographError extends GateError {
  override name = 'PhotographError';
  readonly code: PhotographErrorCode;
  /** What a stdio server wrote to stderr, capped and redacted; absent for HTTP. */
  stderr: string | undefined;
  /** The HTTP status the server answered, when that was the failure. */
  status: number | undefined;

  constructor(code: PhotographErrorCode, message: string, stderr?: string, status?: number) {
    super(message);
    this.code = code;
    this.stderr = stderr;
    this.status = status;
  }
}

/**
 * What the sandbox is told of a failed exchange with an upstream server: a fixed sentence naming
 * the kind of failure, never the server's own text (which its owner chooses) nor an address.
 */
export function sandboxSentence(error: PhotographError): string {
  const status = error.status;
  switch (error.code) {
    case 'refused_address':
      return "the upstream server's name resolved to an address this connection may not reach";
    case 'unreachable':
      return 'the upstream server could not be reached';
    case 'timeout':
      return 'the upstream server did not answer in time';
    case 'too_large':
      return 'the upstream server answered more than the gate accepts';
    case 'redirected':
      return 'the upstream server answered HTTP 3xx (a redirect), which is never followed';
    case 'unauthorized':
      return "the upstream server refused the connection's credential";
    case 'invalid_request':
      return "the connection's URL or credential cannot be used";
    case 'protocol':
      return status === undefined
        ? 'the upstream server did not answer as an MCP server'
        : `the upstream server answered HTTP ${Math.floor(status / 100)}xx`;
  }
}
