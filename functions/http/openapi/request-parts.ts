/** What a request sends, as the document describes it: path, query and header parameters, and JSON bodies. */
import type * as v from 'valibot';
import { IDEMPOTENCY_KEY_HEADER, IdempotencyKeySchema } from '../../core/idempotency.js';
import { titled } from './headers.js';
import { jsonSchemaOf, ref } from './json-schema.js';
import type { Json } from './json-schema.js';
import { TaskIdSchema } from './response-schemas.js';

export type QuerySchema = v.ObjectSchema<v.ObjectEntries, undefined> | v.StrictObjectSchema<v.ObjectEntries, undefined>;

/** Each field of a list query as an optional query parameter. */
export function queryParameters(schema: QuerySchema) {
  return Object.entries(schema.entries).map(([name, entry]) => {
    const converted = jsonSchemaOf(entry as v.GenericSchema, 'output');
    // An output of no type (a transform with nothing after it) is described by what is sent: a string.
    const parameterSchema =
      'type' in converted || 'enum' in converted ? converted : jsonSchemaOf(entry as v.GenericSchema, 'input');
    const { description, ...rest } = parameterSchema;
    return { name, in: 'query', required: false, ...(description ? { description } : {}), schema: rest };
  });
}

export const TASK_ID_PARAMETER = { name: 'id', in: 'path', required: true, schema: jsonSchemaOf(TaskIdSchema) };

export const TOPUP_ID_PARAMETER = {
  name: 'topup_id',
  in: 'path',
  required: true,
  description: 'The top-up order id (tp_…).',
  schema: { type: 'string', pattern: '^tp_[0-9a-f]{32}$' },
};

export const DELIVERY_ID_PARAMETER = {
  name: 'id',
  in: 'path',
  required: true,
  description: 'The delivery id (wd_…), as the delivery log shows it.',
  schema: { type: 'string', pattern: '^wd_[0-9a-z]{9}[0-9a-f]{12}$' },
};

export const KEY_ID_PARAMETER = {
  name: 'id',
  in: 'path',
  required: true,
  description: 'The key id (key_…).',
  schema: { type: 'string' },
};

/** A required JSON body of a schema component, with its example (or named examples). */
export function jsonRequestBody(component: string, illustration: { example: unknown } | { examples: Json }): Json {
  return {
    required: true,
    content: { 'application/json': { schema: ref('schemas', component), ...illustration } },
  };
}

export const PARAMETER_COMPONENTS = {
  IdempotencyKey: {
    name: titled(IDEMPOTENCY_KEY_HEADER),
    in: 'header',
    required: false,
    description:
      'Optional. The same key with the same body within 24 h answers the first answer again, once (no second charge), with `Idempotent-Replayed: true`; with another body: 400.',
    schema: jsonSchemaOf(IdempotencyKeySchema),
    example: '3c1c6f53-0d1e-4a86-9d3c-1f0a4a4b2f6e',
  },
};
