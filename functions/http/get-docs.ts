/**
 * GET /docs: the OpenAPI document rendered by Redoc. Its script (2.2 MB, 650 KB gzipped) is far over a function
 * bundle's 500 KiB budget, so the page loads it from jsDelivr, pinned to one version and checked by its hash
 * (Subresource Integrity): a changed file is refused by the browser, never run.
 */
import { publicDocumentRoute } from './api-handler.js';

/** redoc@3.0.1 bundles/redoc.standalone.js: sha384 of the file in the npm package (jsDelivr serves it unchanged). */
export const REDOC_SCRIPT = {
  url: 'https://cdn.jsdelivr.net/npm/redoc@3.0.1/bundles/redoc.standalone.js',
  integrity: 'sha384-j07qRKHNNmcwU1/Y1elJc7pDLHXP/QfbQXTtSkbOJ7uYGJikqAzsFVbY2zR9FqOT',
};

const PAGE = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>Video Generation Service API</title>
  </head>
  <body>
    <redoc spec-url="/api/v1/openapi.json" disable-telemetry="true"></redoc>
    <noscript>This page needs JavaScript; the document itself is at <a href="/api/v1/openapi.json">/api/v1/openapi.json</a>.</noscript>
    <script type="module" src="${REDOC_SCRIPT.url}" integrity="${REDOC_SCRIPT.integrity}" crossorigin="anonymous"></script>
  </body>
</html>
`;

export const handler = publicDocumentRoute(async () => ({
  statusCode: 200,
  headers: {
    'content-type': 'text/html; charset=utf-8',
    'cache-control': 'public, max-age=300',
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'no-referrer',
  },
  body: PAGE,
}));
