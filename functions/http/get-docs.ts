/**
 * GET /docs: the OpenAPI document rendered by Swagger UI. Its files (1.7 MB) are far over a function bundle's
 * 500 KiB budget, so they come from the npm package `swagger-ui-dist`, built into the console's site under
 * /console/docs/ (lib/ship/console/build.ts): the page loads nothing from another origin. In AWS, open /docs on the
 * console's CloudFront domain, which serves both (docs/console.md).
 */
import { publicDocumentRoute } from './api-handler.js';

/** Where the console's site serves the renderer; the same path locally and on CloudFront. */
export const DOCS_RENDERER_PATH = '/console/docs/';

const PAGE = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>Video Generation Service API</title>
    <link rel="stylesheet" href="${DOCS_RENDERER_PATH}swagger-ui.css" />
  </head>
  <body>
    <div id="reference"></div>
    <noscript>This page needs JavaScript; the document itself is at <a href="/api/v1/openapi.json">/api/v1/openapi.json</a>.</noscript>
    <p id="no-renderer" hidden>
      The page's renderer did not load here; the document itself is at <a href="/api/v1/openapi.json">/api/v1/openapi.json</a>.
    </p>
    <script src="${DOCS_RENDERER_PATH}swagger-ui-bundle.js"
      onerror="document.getElementById('no-renderer').hidden = false"></script>
    <script>
      if (window.SwaggerUIBundle) {
        window.SwaggerUIBundle({
          url: '/api/v1/openapi.json',
          dom_id: '#reference',
          deepLinking: true,
          // Off: the default sends the document to an outside validator service.
          validatorUrl: null,
          supportedSubmitMethods: [],
        });
      }
    </script>
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
