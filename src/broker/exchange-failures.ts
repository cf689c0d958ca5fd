import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { PhotographError } from './photograph-error.js';

/** What went wrong talking to an HTTP MCP server, as a `PhotographError` a caller can act on. */
export function httpFailure(
  error: unknown,
  target: URL,
  redact: (text: string) => string,
): PhotographError {
  const where = `${target.protocol}//${target.host}`;
  if (error instanceof PhotographError) return error;
  if (error instanceof UnauthorizedError) {
    return new PhotographError('unauthorized', `${where} refused the credential`);
  }
  if (error instanceof StreamableHTTPError && error.code !== undefined && error.code > 0) {
    if (error.code === 401 || error.code === 403) {
      return new PhotographError(
        'unauthorized',
        `${where} refused the credential (HTTP ${error.code})`,
        undefined,
        error.code,
      );
    }
    return new PhotographError(
      'protocol',
      `${where} answered HTTP ${error.code}; is the URL its MCP endpoint?`,
      undefined,
      error.code,
    );
  }
  const networkCode = networkErrorCode(error);
  if (networkCode !== undefined) {
    return new PhotographError('unreachable', `could not connect to ${where} (${networkCode})`);
  }
  return protocolFailure(where, error, redact);
}

/** A server that answered, but not as MCP (or with an error), its words redacted. */
export function protocolFailure(
  who: string,
  error: unknown,
  redact: (text: string) => string,
): PhotographError {
  if (error instanceof PhotographError) return error;
  const detail = error instanceof Error ? error.message : String(error);
  const kind = error instanceof McpError ? 'answered with an error' : 'did not answer as MCP';
  return new PhotographError('protocol', `${who} ${kind}: ${redact(detail)}`);
}

// fetch reports a failed connection as TypeError("fetch failed") with the system error as cause.
function networkErrorCode(error: unknown): string | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && current instanceof Error; depth++) {
    const code = (current as NodeJS.ErrnoException).code;
    if (typeof code === 'string' && /^(E[A-Z]+|UND_ERR_[A-Z_]+)$/.test(code)) return code;
    current = current.cause;
  }
  return error instanceof TypeError && error.message === 'fetch failed'
    ? 'fetch failed'
    : undefined;
}
