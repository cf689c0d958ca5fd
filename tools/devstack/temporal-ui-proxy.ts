/**
 * The dev stack's Temporal UI with the gate's codec on the UI's own origin. The UI that
 * `temporal server start-dev` serves calls its codec endpoint without credentials (the UI's
 * `codec.includeCredentials` has no flag there), so a codec on another origin never sees the
 * operator's session cookie, answers 401, and the UI says "Codec Server could not connect".
 * Here, on the address the profile gives the UI, `/codec/encode` and `/codec/decode` go to the
 * API with the browser's cookie (same origin: the browser sends it) and everything else to the
 * UI, which listens on a loopback port of its own.
 */
import { createServer, request } from 'node:http';

export interface Address {
  host: string;
  port: number;
}

const codecPaths = new Set(['/codec/encode', '/codec/decode']);

export interface UiProxy {
  close(): Promise<void>;
}

export async function startTemporalUiProxy(
  listen: Address,
  ui: Address,
  api: Address,
): Promise<UiProxy> {
  const server = createServer((incoming, answer) => {
    const toApi = codecPaths.has((incoming.url ?? '').split('?')[0] ?? '');
    const to = toApi ? api : ui;
    const outgoing = request(
      {
        host: to.host,
        port: to.port,
        method: incoming.method,
        path: incoming.url,
        headers: incoming.headers,
      },
      (response) => {
        answer.writeHead(response.statusCode ?? 502, response.headers);
        response.pipe(answer);
      },
    );
    outgoing.on('error', () => {
      if (!answer.headersSent) answer.writeHead(502, { 'content-type': 'text/plain' });
      answer.end(`${toApi ? 'the gate API' : 'the Temporal UI'} does not answer\n`);
    });
    incoming.pipe(outgoing);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(listen.port, listen.host, resolve);
  });
  return {
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => {
          resolve();
        });
      }),
  };
}
