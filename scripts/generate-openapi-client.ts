/**
 * `npm run openapi-client`: writes the types of the generated API client
 * (test/support/gate-api.generated.ts, used with openapi-fetch) from the OpenAPI document the
 * API serves. Run it after changing a route; test/api/openapi.test.ts fails until it matches.
 * The document is read off the routes alone: nothing is listened on and no service is reached.
 */
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { createApi } from '../src/api/main.js';
import { loadConfig } from '../src/config.js';
import { clientTypesFile, clientTypesFor } from '../test/support/openapi-client-types.js';

const config = loadConfig({
  DATABASE_URL: 'postgres://gate@127.0.0.1:1/unused',
  TEMPORAL_ADDRESS: '127.0.0.1:1',
  GATE_PAYLOAD_KEYS: `k1:${randomBytes(32).toString('base64')}`,
  GATE_SEALING_KEY: randomBytes(32).toString('base64'),
});
const app = createApi(config, randomBytes(24).toString('base64url'));
await app.ready();
writeFileSync(clientTypesFile, await clientTypesFor(app.swagger()));
await app.close();
