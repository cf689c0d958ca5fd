/**
 * An authorization server's answers are read up to their bound and no further: a server that
 * sends a 100 MB metadata document is refused once the bound is passed, not read to its end.
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, test } from 'vitest';
import { brokerResolver } from '../../src/broker/address-reach.js';
import {
  beginAuthorization,
  OAuthFlowError,
  oauthAnswerMaxBytes,
} from '../../src/broker/oauth-client.js';

const hugeBytes = 100 * 1024 * 1024;
let server: Server;
let here = '';
/** How much of the huge metadata the server got to write before the gate hung up. */
let written = 0;

beforeAll(async () => {
  server = createServer((request, response) => {
    if (request.url?.startsWith('/.well-known/oauth-protected-resource')) {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ resource: `${here}/mcp`, authorization_servers: [here] }));
      return;
    }
    if (request.url?.startsWith('/.well-known/oauth-authorization-server')) {
      // A JSON string 100 MB long, written as fast as the reader takes it.
      response.writeHead(200, { 'content-type': 'application/json' });
      const chunk = Buffer.alloc(64 * 1024, 'a');
      response.write(`{"issuer":"${here}","padding":"`);
      const more = () => {
        while (written < hugeBytes) {
          written += chunk.length;
          if (!response.write(chunk)) {
            response.once('drain', more);
            return;
          }
        }
        response.end('"}');
      };
      response.on('close', () => response.removeAllListeners('drain'));
      more();
      return;
    }
    response.writeHead(401, {
      'www-authenticate': `Bearer resource_metadata="${here}/.well-known/oauth-protected-resource/mcp"`,
    });
    response.end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  here = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise((resolve) => server.close(resolve)));

test('a 100 MB authorization server metadata document is refused at its bound, not read to its end', async () => {
  const error = await beginAuthorization(`${here}/mcp`, {
    redirectUrl: 'http://127.0.0.1:9/callback',
    state: 'state',
    dial: { reach: 'loopback', resolve: brokerResolver(undefined) },
  }).then(
    () => undefined,
    (err: unknown) => err,
  );
  assert.ok(error instanceof OAuthFlowError, String(error));
  assert.match(error.message, new RegExp(`larger than ${oauthAnswerMaxBytes} bytes`));
  // What socket buffers hold beyond the bound, never the 100 MB.
  assert.ok(written < 16 * 1024 * 1024, `the server wrote ${written} bytes`);
});
