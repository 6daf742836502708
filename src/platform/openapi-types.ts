import openapiTS, { astToString } from 'openapi-typescript';

/** Where the web client keeps the types generated from the document (`npm run web:api` writes it). */
export const WEB_API_TYPES = 'web/src/api/schema.d.ts';

const HEADER = '// Generated from the service\'s OpenAPI document by `npm run web:api`; do not edit.\n// A test fails while it differs from the document, and the client\'s typecheck then shows what changed.\n';

/** The web client's API types for an OpenAPI document (openapi-typescript, as openapi-fetch expects). */
export async function webApiTypes(document: object): Promise<string> {
  const ast = await openapiTS(document as Parameters<typeof openapiTS>[0], { alphabetize: false });
  return HEADER + astToString(ast);
}
