/** The document's components: how a caller signs in, the shared parameters and headers, the schemas and error answers. */
import { CreateUploadBody, CreateUploadResponse } from '../../core/uploads.js';
import { TransactionsPageSchema } from '../../core/ledger.js';
import { DeliveriesPageSchema, DeliveryViewSchema } from '../../core/webhook-delivery.js';
import { TopupListSchema, TopupRequestSchema, TopupViewSchema } from '../../core/topup.js';
import { CONSOLE_SCHEMAS } from './console-operations.js';
import { errorResponses, GatewayMessageSchema } from './error-responses.js';
import { HEADER_COMPONENTS } from './headers.js';
import { jsonSchemaOf } from './json-schema.js';
import type { Json } from './json-schema.js';
import { PARAMETER_COMPONENTS } from './request-parts.js';
import {
  BalanceSchema,
  HealthSchema,
  ModelListSchema,
  SubmitResultSchema,
  TaskListSchema,
  TaskSchema,
} from './response-schemas.js';
import { submitBodySchema } from './submit-request.js';
import { openAiSchemas } from './openai-schemas.js';

export function components(): Json {
  return {
    securitySchemes: {
      bearerAuth: {
        type: 'http',
        scheme: 'bearer',
        description: 'An API key (it starts with `bc_`) from the console: `Authorization: Bearer bc_…`.',
      },
      consoleJwt: {
        type: 'http',
        scheme: 'bearer',
        bearerFormat: 'JWT',
        description: 'The console’s sign-in: a Cognito user pool access token (`Authorization: Bearer eyJ…`).',
      },
    },
    parameters: PARAMETER_COMPONENTS,
    headers: HEADER_COMPONENTS,
    schemas: {
      SubmitRequest: submitBodySchema(),
      UploadRequest: jsonSchemaOf(CreateUploadBody, 'input'),
      SubmitResult: jsonSchemaOf(SubmitResultSchema),
      Task: jsonSchemaOf(TaskSchema),
      TaskList: jsonSchemaOf(TaskListSchema),
      Balance: jsonSchemaOf(BalanceSchema),
      TransactionsPage: jsonSchemaOf(TransactionsPageSchema),
      WebhookDelivery: jsonSchemaOf(DeliveryViewSchema),
      WebhookDeliveriesPage: jsonSchemaOf(DeliveriesPageSchema),
      ModelList: jsonSchemaOf(ModelListSchema),
      Upload: jsonSchemaOf(CreateUploadResponse),
      Health: jsonSchemaOf(HealthSchema),
      TopupRequest: jsonSchemaOf(TopupRequestSchema, 'input'),
      Topup: jsonSchemaOf(TopupViewSchema),
      TopupList: jsonSchemaOf(TopupListSchema),
      ...openAiSchemas(),
      Null: { type: 'null' },
      GatewayMessage: jsonSchemaOf(GatewayMessageSchema),
      ...Object.fromEntries(
        Object.entries(CONSOLE_SCHEMAS).map(([name, schema]) => [name, jsonSchemaOf(schema, 'input')]),
      ),
    },
    responses: errorResponses(),
  };
}
