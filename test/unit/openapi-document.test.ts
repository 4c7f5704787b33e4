/**
 * The OpenAPI document (docs/api-contract.md, "OpenAPI document"): valid OpenAPI 3.1 by a real validator, one operation for every route
 * of lib/ship/routes.ts and none other, every documented field described, every example valid against its schema,
 * and the answers the handlers really give (the envelope, X-Request-Id) as documented.
 */
import SwaggerParser from '@apidevtools/swagger-parser';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { beforeAll, describe, expect, it } from 'vitest';
import { toModelView } from '../../functions/core/use-cases/list-models.js';
import { openApiDocument } from '../../functions/http/openapi/document.js';
import { ERROR_MEANINGS } from '../../functions/http/openapi/error-responses.js';
import { EXAMPLES } from '../../functions/http/openapi/examples.js';
import { API_ROUTES } from '../../lib/ship/routes.js';
import { OpenApiValidator } from '../support/openapi-validator.js';
import { catalogModel, catalogRecords } from './support.js';

type Json = Record<string, unknown>;

let validator: OpenApiValidator;
beforeAll(async () => {
  validator = await OpenApiValidator.of(openApiDocument());
});

describe('the OpenAPI document', () => {
  it('is valid OpenAPI 3.1 (@apidevtools/swagger-parser)', async () => {
    const document = openApiDocument();
    expect(document['openapi']).toBe('3.1.0');
    await expect(SwaggerParser.validate(structuredClone(document) as never)).resolves.toBeTruthy();
  });

  it('has one operation per route of lib/ship/routes.ts, named by its id, and no other', () => {
    const documented = validator.operations.map(({ method, path, operation }) => ({
      id: (operation as unknown as Json)['operationId'],
      method,
      path,
    }));
    const routes = API_ROUTES.map(({ id, method, path }) => ({ id, method, path }));
    expect(documented.sort(byId)).toEqual(routes.sort(byId));
  });

  it('documents the bearer scheme on every route but the public ones, and the error codes of the spec', () => {
    const document = openApiDocument();
    expect((document['components'] as Json)['securitySchemes']).toMatchObject({
      bearerAuth: { type: 'http', scheme: 'bearer' },
    });
    const publicRoutes = ['UpstreamCallback', 'AlipayNotify', 'Health', 'GetOpenApi', 'GetDocs'];
    for (const { operation } of validator.operations) {
      const spec = operation as unknown as Json;
      const isPublic = publicRoutes.includes(spec['operationId'] as string);
      if ((spec['operationId'] as string).startsWith('Console')) {
        // The console's routes take the Cognito token, never a key; a bad token is the gateway's own 401.
        expect(spec['security'], spec['operationId'] as string).toEqual([{ consoleJwt: [] }]);
        expect(Object.keys(operation.responses)).toEqual(expect.arrayContaining(['200', '401', '500']));
        continue;
      }
      expect(spec['security'], spec['operationId'] as string).toEqual(isPublic ? [] : undefined);
      // OpenAI's download answers a redirect, and its remix (not supported) nothing but its refusal.
      const success = { OpenAiGetVideoContent: ['302'], OpenAiRemixVideo: [] }[spec['operationId'] as string] ?? [
        '200',
      ];
      if (!isPublic)
        expect(Object.keys(operation.responses)).toEqual(
          expect.arrayContaining([...success, '400', '401', '429', '500']),
        );
    }
    // Every code of the spec's error table has its response, in the envelope, with X-Request-Id.
    const responses = validator.components('responses') as Record<string, { headers?: Json; content: Json }>;
    for (const code of Object.keys(ERROR_MEANINGS)) {
      const response = Object.values(responses).find(
        (candidate) => ((candidate.content['application/json'] as Json)['example'] as Json)['code'] === Number(code),
      );
      expect(response, code).toBeDefined();
      expect(response?.headers).toHaveProperty('X-Request-Id');
    }
  });

  it('documents the 415 of every operation that takes a JSON body, and of no other', () => {
    const withBody: string[] = [];
    for (const { operation } of validator.operations) {
      const spec = operation as unknown as Json;
      const id = spec['operationId'] as string;
      // The upstream's report is only a hint, read whatever its Content-Type; Alipay's notification is a form.
      const checked = Boolean(spec['requestBody']) && id !== 'UpstreamCallback' && id !== 'AlipayNotify';
      if (checked) withBody.push(id);
      expect(Object.hasOwn(operation.responses, '415'), id).toBe(checked);
    }
    expect(withBody.sort()).toEqual(
      [
        'ConsoleCreateKey',
        'ConsoleCreateTopup',
        'ConsoleRedeemCode',
        'ConsoleSendTestWebhook',
        'ConsoleUpdateKey',
        'CreateTopup',
        'CreateUpload',
        'OpenAiCreateVideo',
        'SubmitTask',
      ].sort(),
    );
    const answer = {
      method: 'POST',
      path: '/api/v1/video/generate',
      status: 415,
      headers: new Headers({ 'content-type': 'application/json', 'x-request-id': 'r' }),
      body: { code: 415, message: 'Content-Type must be application/json (got text/plain)', data: null },
    };
    expect(validator.check(answer)).toEqual([]);
    expect(validator.check({ ...answer, path: '/api/v1/models', method: 'GET' })).toEqual([
      expect.stringMatching(/status not documented/),
    ]);
  });

  it('takes an Idempotency-Key on the submit and the upload, and says when an answer is a replay', () => {
    for (const id of ['SubmitTask', 'CreateUpload']) {
      const { operation } = validator.operations.find((o) => (o.operation as unknown as Json)['operationId'] === id)!;
      const parameters = (operation as unknown as Json)['parameters'] as Json[];
      expect(parameters.map((p) => [p['name'], p['in']])).toContainEqual(['Idempotency-Key', 'header']);
      expect(operation.responses['200']?.headers).toHaveProperty('Idempotent-Replayed');
    }
  });

  it('describes every field a client sends in a submit, from the schemas the handler parses with', () => {
    const submit = validator.components('schemas')['SubmitRequest'] as { properties: Record<string, Json> };
    for (const field of ['model', 'model_id', 'modelId', 'prompt', 'duration', 'image_urls', 'imageUrls', 'seed']) {
      expect(submit.properties, field).toHaveProperty(field);
    }
    for (const [field, schema] of Object.entries(submit.properties)) {
      expect(schema['description'], field).toEqual(expect.any(String));
    }
    expect(validator.validate(submit as Json, { model: 'm', prompt: 'p', durration: 5 })).not.toEqual([]);
    expect(validator.validate(submit as Json, { prompt: 'no model' })).not.toEqual([]);
    expect(validator.validate(submit as Json, { model: 'm', prompt: 'p', duration: 31 })).not.toEqual([]);
  });

  it('describes every field of every answer', () => {
    const undescribed: string[] = [];
    const visit = (schema: unknown, where: string) => {
      if (!schema || typeof schema !== 'object') return;
      const node = schema as Json;
      for (const [name, property] of Object.entries((node['properties'] ?? {}) as Record<string, Json>)) {
        const described = property['description'] ?? (property['anyOf'] as Json[] | undefined)?.[0]?.['description'];
        if (!described && !['code', 'message', 'data', 'currency'].includes(name)) undescribed.push(`${where}.${name}`);
      }
      for (const value of Object.values(node)) {
        if (value && typeof value === 'object') visit(value, where);
      }
    };
    for (const name of ['Task', 'TaskList', 'SubmitResult', 'Balance']) {
      visit(validator.components('schemas')[name], name);
    }
    expect(undescribed).toEqual([]);
  });

  it('has examples that its own schemas accept', () => {
    let checked = 0;
    for (const { method, path, operation } of validator.operations) {
      const media = [
        ...Object.entries(operation.responses).map(([status, response]) => [status, response.content] as const),
        ['request', operation.requestBody?.content] as const,
      ];
      for (const [status, content] of media) {
        for (const { schema, example, examples } of Object.values(content ?? {})) {
          const values = [
            ...(example !== undefined ? [example] : []),
            ...Object.values(examples ?? {}).map((e) => e.value),
          ];
          for (const value of values) {
            expect(validator.validate(schema as Json, value), `${method} ${path} ${status}`).toEqual([]);
            checked += 1;
          }
        }
      }
    }
    expect(checked).toBeGreaterThan(20);
  });

  it('has examples a client can copy: the models of the seeded catalog, as GET /api/v1/models shows them', () => {
    const catalog = catalogRecords();
    const named = (name: unknown) => catalog.some((record) => record['name'] === name);
    const submits = Object.values(EXAMPLES.submitRequests).map((example) => example.value as Record<string, unknown>);
    for (const body of submits) {
      const byId = body['model_id'] ?? body['modelId'];
      if (byId !== undefined) expect(catalog.map((record) => record['id'])).toContain(byId);
      else expect(named(body['model']), String(body['model'])).toBe(true);
    }
    expect(named(EXAMPLES.task.model)).toBe(true);
    for (const model of EXAMPLES.models) expect(model).toEqual(toModelView(catalogModel(model.name)));
  });
});

describe('the e2e answer check (test/support/openapi-validator.ts)', () => {
  const headers = (id?: string) =>
    new Headers({ 'content-type': 'application/json', ...(id ? { 'x-request-id': id } : {}) });
  const balance = { code: 0, message: 'success', data: { balance: 1, currency: 'CNY' } };

  it('passes a documented answer and names what is wrong with any other', () => {
    const answer = {
      method: 'GET',
      path: '/api/v1/account/balance?x=1',
      status: 200,
      headers: headers('r'),
      body: balance,
    };
    expect(validator.check(answer)).toEqual([]);
    expect(validator.check({ ...answer, headers: headers() })).toEqual([expect.stringMatching(/X-Request-Id missing/)]);
    expect(validator.check({ ...answer, body: { ...balance, data: { ...balance.data, extra: 1 } } })).not.toEqual([]);
    expect(validator.check({ ...answer, status: 403 })).toEqual([expect.stringMatching(/status not documented/)]);
    expect(validator.check({ ...answer, path: '/api/v1/nope' })).toEqual([expect.stringMatching(/no such operation/)]);
    const notFound = { code: 404, message: 'no such endpoint', data: null };
    expect(validator.check({ ...answer, path: '/api/v1/nope', status: 404, body: notFound })).toEqual([]);
  });
});

describe('the answers of the handlers, against the document', () => {
  const context = { awsRequestId: 'lambda-1', functionName: 'test' } as Context;
  const event = (method: string, path: string, requestId = 'req-1'): APIGatewayProxyEventV2 =>
    ({
      version: '2.0',
      routeKey: `${method} ${path}`,
      rawPath: path,
      rawQueryString: '',
      headers: {},
      isBase64Encoded: false,
      requestContext: { requestId, http: { method, path } },
    }) as unknown as APIGatewayProxyEventV2;
  const asAnswer = (method: string, path: string, result: APIGatewayProxyStructuredResultV2) => {
    const headers = new Headers(result.headers as Record<string, string>);
    const isJson = (headers.get('content-type') ?? '').startsWith('application/json');
    return {
      method,
      path,
      status: result.statusCode ?? 200,
      headers,
      body: isJson ? JSON.parse(result.body ?? '') : result.body,
    };
  };

  it('GET /api/v1/health: 200 {status: ok} in the envelope, with the request id', async () => {
    const { handler } = await import('../../functions/http/health.js');
    const result = await handler(event('GET', '/api/v1/health', 'health-1'), context);
    expect(result.headers?.['x-request-id']).toBe('health-1');
    expect(JSON.parse(result.body ?? '')).toEqual({ code: 0, message: 'success', data: { status: 'ok' } });
    expect(validator.check(asAnswer('GET', '/api/v1/health', result))).toEqual([]);
  });

  it('GET /api/v1/openapi.json: the document itself, and GET /docs an HTML page that loads it', async () => {
    const openapi = await import('../../functions/http/get-openapi.js');
    const served = await openapi.handler(event('GET', '/api/v1/openapi.json'), context);
    expect(JSON.parse(served.body ?? '')).toEqual(openApiDocument());
    expect(validator.check(asAnswer('GET', '/api/v1/openapi.json', served))).toEqual([]);
    const docs = await import('../../functions/http/get-docs.js');
    const page = await docs.handler(event('GET', '/docs', 'docs-1'), context);
    expect(page.headers?.['x-request-id']).toBe('docs-1');
    expect(page.body).toContain("url: '/api/v1/openapi.json'");
    // Nothing from another origin: every src and href is a path of ours.
    expect([...(page.body ?? '').matchAll(/(?:src|href)="([^"]+)"/g)].every(([, url]) => url?.startsWith('/'))).toBe(
      true,
    );
    expect(validator.check(asAnswer('GET', '/docs', page))).toEqual([]);
  });

  it("the default route's 404 carries the request id and is as documented", async () => {
    const { handler } = await import('../../functions/http/not-found.js');
    const result = await handler(event('GET', '/api/v1/nope', 'missing-1'), context);
    expect(result.statusCode).toBe(404);
    expect(result.headers?.['x-request-id']).toBe('missing-1');
    expect(validator.check(asAnswer('GET', '/api/v1/nope', result))).toEqual([]);
  });
});

function byId(a: { id: unknown }, b: { id: unknown }): number {
  return String(a.id).localeCompare(String(b.id));
}
