/**
 * `npm run openapi-client`: writes the types of the generated API client
 * (test/support/gate-api.generated.ts, used with openapi-fetch) from the OpenAPI document the
 * API serves. Run it after changing a route; test/api/openapi.test.ts fails until it matches.
 */
import { writeFileSync } from 'node:fs';
import { buildOpenApiDocument } from '../src/api/openapi/openapi-document.js';
import { apiVersion } from '../src/api/routes/openapi.js';
import { clientTypesFile, clientTypesFor } from '../test/support/openapi-client-types.js';

writeFileSync(clientTypesFile, await clientTypesFor(buildOpenApiDocument(apiVersion)));
