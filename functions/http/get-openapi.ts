/** GET /api/v1/openapi.json: the OpenAPI 3.1 document (docs/api-contract.md, "OpenAPI document"), built from the bundle's schemas. */
import { publicDocumentRoute } from './api-handler.js';
import { openApiDocument } from './openapi/document.js';

export const handler = publicDocumentRoute(async () => ({
  statusCode: 200,
  headers: { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'public, max-age=300' },
  body: JSON.stringify(openApiDocument()),
}));
