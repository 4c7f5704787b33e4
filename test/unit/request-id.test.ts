/**
 * docs/api-contract.md, "Request ids": an answer carries the API Gateway request id in X-Request-Id, whatever it is (a success, an
 * error of ours, an unexpected fault), and every log line of the invocation carries it as `request_id`, the
 * next invocation's id replacing it.
 */
import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { NotFoundError } from '../../functions/core/api-error.js';
import { logger } from '../../functions/adapters/runtime/logger.js';
import { publicRoute } from '../../functions/http/api-handler.js';

const context = { awsRequestId: 'lambda-invocation', functionName: 'test' } as Context;
const event = (requestId: string, path: string) =>
  ({
    rawPath: path,
    headers: {},
    requestContext: { requestId, http: { method: 'GET', path } },
  }) as unknown as APIGatewayProxyEventV2;

const handler = publicRoute(async (request) => {
  logger.warn('inside the route', { path: request.rawPath });
  if (request.rawPath === '/missing') throw new NotFoundError('no such thing');
  if (request.rawPath === '/fault') throw new Error('boom');
  return { data: { ok: true } };
});

describe('request ids', () => {
  let lines: Record<string, unknown>[];
  beforeEach(() => {
    lines = [];
    const capture = (chunk: unknown) => {
      for (const line of String(chunk).split('\n').filter(Boolean))
        lines.push(JSON.parse(line) as Record<string, unknown>);
      return true;
    };
    vi.spyOn(process.stdout, 'write').mockImplementation(capture);
    vi.spyOn(process.stderr, 'write').mockImplementation(capture);
  });
  afterEach(() => vi.restoreAllMocks());

  it.each([
    ['/ok', 200],
    ['/missing', 404],
    ['/fault', 500],
  ])('%s: answers %i with X-Request-Id, and its log lines carry the id', async (path, status) => {
    const result = await handler(event(`rid-${path}`, path), context);
    expect(result.statusCode).toBe(status);
    expect(result.headers?.['x-request-id']).toBe(`rid-${path}`);
    expect(lines.length).toBeGreaterThan(0);
    for (const line of lines) expect(line, JSON.stringify(line)).toMatchObject({ request_id: `rid-${path}` });
    if (status === 500) expect(lines.map((line) => line['message'])).toContain('unhandled error');
  });

  it("a later invocation's lines carry its own id, never the one before", async () => {
    await handler(event('first', '/ok'), context);
    await handler(event('second', '/ok'), context);
    expect(lines.map((line) => line['request_id'])).toEqual(['first', 'second']);
  });
});
