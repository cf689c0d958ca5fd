import openapiTS, { astToString, type OpenAPI3 } from 'openapi-typescript';
import * as prettier from 'prettier';

export const clientTypesFile = new URL('./gate-api.generated.ts', import.meta.url);

/** The client's types for an OpenAPI document, formatted as the checked-in file is. */
export async function clientTypesFor(document: unknown): Promise<string> {
  const ast = await openapiTS(document as OpenAPI3);
  const source =
    '// Generated from /openapi.json by `npm run openapi-client`; do not edit.\n' +
    astToString(ast);
  const options = await prettier.resolveConfig(clientTypesFile);
  return prettier.format(source, { ...options, parser: 'typescript' });
}
