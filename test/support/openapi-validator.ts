/**
 * Checks an answer against the OpenAPI document (docs/api-contract.md, "OpenAPI document"): its operation by method and path (or, for a
 * path the API does not have, the error it must be), its status among the documented ones, its body against
 * that status's schema (ajv, JSON Schema 2020-12, with formats), and the headers the document says it carries.
 */
import SwaggerParser from '@apidevtools/swagger-parser';
import { Ajv2020 } from 'ajv/dist/2020.js';
import type { ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { matchPath } from '../../lib/ship/routes.js';

type Json = Record<string, unknown>;

interface ResponseSpec {
  headers?: Record<string, { required?: boolean }>;
  content?: Record<string, { schema?: Json; example?: unknown; examples?: Record<string, { value: unknown }> }>;
}

interface OperationSpec {
  responses: Record<string, ResponseSpec>;
  requestBody?: {
    content: Record<string, { schema?: Json; example?: unknown; examples?: Record<string, { value: unknown }> }>;
  };
}

/** What a path the API does not have may answer: the `$default` route's 404, or the gateway's own refusals. */
const UNMATCHED: Record<number, string> = { 400: 'BadRequest', 404: 'NotFound', 413: 'PayloadTooLarge' };

export interface AnswerToCheck {
  method: string;
  /** The request's path, with or without its query string. */
  path: string;
  status: number;
  headers: Headers;
  body: unknown;
}

export class OpenApiValidator {
  private readonly ajv = new Ajv2020({ strict: true, strictRequired: false, allErrors: true });
  private readonly compiled = new Map<object, ValidateFunction>();

  private constructor(readonly document: Json) {
    addFormats.default(this.ajv);
  }

  /** From the document as served (its $refs resolved here). */
  static async of(document: Json): Promise<OpenApiValidator> {
    const dereferenced = (await SwaggerParser.dereference(structuredClone(document) as never)) as unknown as Json;
    return new OpenApiValidator(dereferenced);
  }

  get operations(): { method: string; path: string; operation: OperationSpec }[] {
    const paths = this.document['paths'] as Record<string, Record<string, OperationSpec>>;
    return Object.entries(paths).flatMap(([path, methods]) =>
      Object.entries(methods).map(([method, operation]) => ({ method: method.toUpperCase(), path, operation })),
    );
  }

  /** The problems of an answer (empty when it is as documented). */
  check(answer: AnswerToCheck): string[] {
    const pathname = answer.path.split('?')[0] as string;
    const found = this.operations.find(
      (candidate) => candidate.method === answer.method.toUpperCase() && matchPath(candidate.path, pathname),
    );
    const where = `${answer.method} ${pathname} → ${answer.status}`;
    let response: ResponseSpec | undefined;
    if (found) {
      response = found.operation.responses[String(answer.status)];
      if (!response) return [`${where}: status not documented for ${found.method} ${found.path}`];
    } else {
      const name = UNMATCHED[answer.status];
      response = name ? (this.components('responses')[name] as ResponseSpec) : undefined;
      if (!response) return [`${where}: no such operation, and not an answer of the default route`];
    }
    const problems: string[] = [];
    for (const [name, header] of Object.entries(response.headers ?? {})) {
      if (header.required && !answer.headers.has(name)) problems.push(`${where}: header ${name} missing`);
    }
    const contentType = (answer.headers.get('content-type') ?? '').split(';')[0]?.trim() ?? '';
    const media = response.content?.[contentType];
    if (!media) return [...problems, `${where}: content type "${contentType}" not documented`];
    if (media.schema) problems.push(...this.validate(media.schema, answer.body).map((error) => `${where}: ${error}`));
    return problems;
  }

  /** Each problem of `value` against `schema` (a schema of the dereferenced document). */
  validate(schema: Json, value: unknown): string[] {
    let validator = this.compiled.get(schema);
    if (!validator) {
      validator = this.ajv.compile(schema);
      this.compiled.set(schema, validator);
    }
    if (validator(value)) return [];
    return (validator.errors ?? []).map(
      (error) => `${error.instancePath || '(body)'} ${error.message ?? ''} ${JSON.stringify(error.params)}`,
    );
  }

  components(kind: string): Json {
    return ((this.document['components'] as Json)[kind] ?? {}) as Json;
  }
}

const validators = new Map<string, Promise<OpenApiValidator>>();

/** The validator of the document a running stack serves, fetched once per stack. */
export function servedValidator(baseUrl: string): Promise<OpenApiValidator> {
  let validator = validators.get(baseUrl);
  if (!validator) {
    validator = fetch(`${baseUrl}/api/v1/openapi.json`)
      .then((response) => response.json() as Promise<Json>)
      .then((document) => OpenApiValidator.of(document));
    validator.catch(() => validators.delete(baseUrl));
    validators.set(baseUrl, validator);
  }
  return validator;
}
