/** The document's JSON Schema, converted from the valibot schemas the handlers parse with, and its references. */
import { toJsonSchema } from '@valibot/to-json-schema';
import type { ConversionConfig } from '@valibot/to-json-schema';
import type * as v from 'valibot';

export type Json = Record<string, unknown>;

const CONVERSION: ConversionConfig = { target: 'draft-2020-12', errorMode: 'ignore' };

/** A valibot schema as JSON Schema 2020-12 (OpenAPI 3.1's dialect, so no `$schema` of its own). */
export function jsonSchemaOf(schema: v.GenericSchema, typeMode: ConversionConfig['typeMode'] = 'ignore'): Json {
  const { $schema: _dialect, ...converted } = toJsonSchema(schema, { ...CONVERSION, typeMode }) as Json;
  return converted;
}

/** A reference to one of the document's components. */
export const ref = (kind: 'schemas' | 'responses' | 'headers' | 'parameters', name: string) => ({
  $ref: `#/components/${kind}/${name}`,
});
