/**
 * The OpenAPI 3.1 document of the API (docs/api-contract.md, "OpenAPI document"), built from the valibot schemas
 * the handlers parse with and those of the answers (response-schemas.ts). GET /api/v1/openapi.json serves it from
 * the bundle, in AWS and locally alike; a unit test checks it against lib/ship/routes.ts (every route, no other)
 * and a real OpenAPI validator.
 */
import { httpRouteOf } from '../../catalog.js';
import { WebhookPayloadSchema } from '../../core/webhook.js';
import { jsonSchemaOf } from './json-schema.js';
import { components } from './components.js';
import { CONSOLE_OPERATIONS } from './console-operations.js';
import type { Json } from './json-schema.js';
import { consoleOperation, publicOperation } from './operation-objects.js';
import { OPENAI_OPERATIONS } from './openai-operations.js';
import { PUBLIC_OPERATIONS } from './public-operations.js';

function buildDocument(): Json {
  const paths: Record<string, Record<string, Json>> = {};
  // Each operation at its route's method and path (functions/catalog.ts), by the route's id.
  const add = (id: string, operation: Json) => {
    const { method, path } = httpRouteOf(id);
    (paths[path] ??= {})[method.toLowerCase()] = operation;
  };
  for (const spec of PUBLIC_OPERATIONS) add(spec.id, publicOperation(spec));
  for (const spec of CONSOLE_OPERATIONS) add(spec.id, consoleOperation(spec));
  for (const { id, operation } of OPENAI_OPERATIONS) add(id, operation);
  return {
    openapi: '3.1.0',
    info: {
      title: 'Video Generation Service',
      version: '1.0.0',
      description:
        'Asynchronous video generation billed from a prepaid CNY balance. Every answer is the envelope `{code, message, data}` (`code` equals the HTTP status; 0 is 200; `data` is null on error) and carries `X-Request-Id`: quote it to support. Money is in yuan.',
    },
    jsonSchemaDialect: 'https://spec.openapis.org/oas/3.1/dialect/base',
    servers: [{ url: '/', description: 'This deployment' }],
    security: [{ bearerAuth: [] }],
    tags: [
      { name: 'Tasks', description: 'Submit, query, list and cancel video generation tasks.' },
      {
        name: 'OpenAI-compatible',
        description:
          "OpenAI's Videos API over the same tasks, for the official `openai` SDK (baseURL `<this host>/api/v1`): OpenAI's objects and error body, no envelope.",
      },
      { name: 'Uploads', description: 'Reference files for a submit.' },
      { name: 'Account', description: 'Balance and ledger.' },
      { name: 'Models', description: 'The catalog and its prices.' },
      { name: 'Webhooks', description: 'The log of completion webhooks sent, and sending one again.' },
      { name: 'Service', description: 'Health and this description.' },
      { name: 'Internal', description: 'Called by the upstream generator, not by customers.' },
      {
        name: 'Console',
        description: 'The web console’s API: a signed-in user’s account, keys and money (Cognito access token).',
      },
    ],
    paths,
    // What we POST to a task's webhook_url (docs/webhooks.md): signed with Standard Webhooks' headers.
    webhooks: {
      taskFinished: {
        post: {
          summary: 'A task succeeded or failed',
          description:
            "Sent to the task's webhook_url once it is success or failed, signed (webhook-id, webhook-timestamp, webhook-signature: Standard Webhooks) with the account's secret; retried until your endpoint answers 2xx. The console's test event has the same shape, with `test: true`.",
          requestBody: {
            required: true,
            content: { 'application/json': { schema: jsonSchemaOf(WebhookPayloadSchema) } },
          },
          responses: { '200': { description: 'Any 2xx: delivered.' } },
        },
      },
    },
    components: components(),
  };
}

let built: Json | undefined;

/** The document, built once per process (a few milliseconds, at the first request). */
export function openApiDocument(): Json {
  built ??= buildDocument();
  return built;
}
