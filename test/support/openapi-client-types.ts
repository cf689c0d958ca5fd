import openapiTS, { astToString, type OpenAPI3 } from 'openapi-typescript';
import * as prettier from 'prettier';

export const clientTypesFile = new URL('./gate-api.generated.ts', import.meta.url);

/** The client's types for an OpenAPI document, formatted as the checked-in file is. */
export async function clientTypesFor(document: unknown): Promise<string> {
  const ast = await openapiTS(document as OpenAPI3);
  const source =
    '// Generated from /openapi.json by `npm run openapi-client`; do not edit.\n' +
    // A constraint between fields (`oneOf` of required ones) comes out as `unknown | unknown`.
    '/* eslint-disable @typescript-eslint/no-redundant-type-constituents, @typescript-eslint/no-duplicate-type-constituents */\n' +
    astToString(ast);
  const options = await prettier.resolveConfig(clientTypesFile);
  return prettier.format(source, { ...options, parser: 'typescript' });
}
