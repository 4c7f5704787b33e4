/**
 * Sequential storage round trips per request, counted on the handlers' own DynamoDB client: calls that
 * start while another is in flight share its round trip. The real handlers run in-process on DynamoDB Local.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ENV, providerEnv } from '../../functions/adapters/runtime/config.js';
import { resourceEnvironment } from '../../functions/adapters/runtime/resources.js';
import { PROVIDER_NAMES } from '../../functions/providers/registry.js';
import { AdminStore } from '../../lib/ship/admin/admin-store.js';
import { loadHandler } from '../../lib/dev/local/handler-loader.js';
import { lambdaContext } from '../../lib/dev/local/lambda-context.js';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '../../lib/ship/sam-local/local-aws.js';
import { taskRecord } from '../support/task-records.js';
import { useDynamoDbLocal } from '../support/dynamodb-local.js';

const local = useDynamoDbLocal('round-trips');
type Handler = (event: APIGatewayProxyEventV2, context: unknown) => Promise<APIGatewayProxyStructuredResultV2>;

/** Round trips: a call that starts when none is in flight begins a new one. */
const trips = { inFlight: 0, count: 0 };
let key = '';
let accountId = '';

// Test files share their worker (vitest.config.ts): the handlers load afresh under this file's environment,
// and the environment is as it was for the next file.
const savedEnvironment = { ...process.env };
afterAll(() => {
  for (const name of Object.keys(process.env)) if (!(name in savedEnvironment)) delete process.env[name];
  Object.assign(process.env, savedEnvironment);
  vi.resetModules();
});

beforeAll(async () => {
  vi.resetModules();
  Object.assign(process.env, {
    ...resourceEnvironment(local.names),
    AWS_REGION: LOCAL_REGION,
    AWS_ACCESS_KEY_ID: LOCAL_CREDENTIALS.accessKeyId,
    AWS_SECRET_ACCESS_KEY: LOCAL_CREDENTIALS.secretAccessKey,
    AWS_ENDPOINT_URL_DYNAMODB: local.dynamo.endpoint,
    [ENV.stateMachineArn.name]: 'arn:aws:states:us-east-1:000000000000:stateMachine:unused',
    [ENV.allowLoopbackTargets.name]: 'true',
    POWERTOOLS_METRICS_DISABLED: 'true',
    POWERTOOLS_LOG_LEVEL: 'ERROR',
    ...Object.fromEntries(
      PROVIDER_NAMES.flatMap((name) => [
        [providerEnv(name).baseUrl.name, 'http://127.0.0.1:9'],
        [providerEnv(name).apiKey.name, 'unused'],
      ]),
    ),
  });
  const { dynamoDocumentClient } = await import('../../functions/adapters/dynamodb/client.js');
  dynamoDocumentClient().middlewareStack.add(
    (next) => async (args) => {
      if (trips.inFlight++ === 0) trips.count += 1;
      try {
        return await next(args);
      } finally {
        trips.inFlight -= 1;
      }
    },
    { step: 'initialize', name: 'countRoundTrips' },
  );
  const admin = new AdminStore(local.db, local.names.tables);
  await admin.seedModels(JSON.parse(readFileSync('lib/ship/seed/model-catalog.json', 'utf8')));
  accountId = `acct-${randomUUID().slice(0, 8)}`;
  // Topped up: a credit spreads over every balance shard, so whichever one a charge draws on covers it and the
  // submit's count below is its usual two (a short shard costs a read of them all: docs/money-and-ledger.md).
  await admin.createAccount(accountId, '0');
  await admin.topUp(accountId, '100', 'round-trips');
  key = (await admin.createKey({ accountId })).key;
});

async function roundTrips(entry: string, event: Partial<APIGatewayProxyEventV2>) {
  const handler = await loadHandler<Handler>(entry);
  trips.count = 0;
  const response = await handler(
    { headers: { authorization: `Bearer ${key}` }, requestContext: {}, ...event } as APIGatewayProxyEventV2,
    lambdaContext('RoundTrips'),
  );
  return { status: response.statusCode, trips: trips.count };
}

describe('storage round trips per request', () => {
  it('GET /video/tasks/{id}: 1 (the key, its rate count and the task together)', async () => {
    const task = taskRecord({ account_id: accountId, status: 'failed', finished_at: new Date().toISOString() });
    const { PutCommand } = await import('@aws-sdk/lib-dynamodb');
    await local.db.send(new PutCommand({ TableName: local.names.tables.tasks, Item: task }));
    const result = await roundTrips('functions/http/get-task.ts', { pathParameters: { id: task.task_id } });
    expect(result).toEqual({ status: 200, trips: 1 });
  });

  it('GET /account/balance: 2 (the account is known only from the key)', async () => {
    expect(await roundTrips('functions/http/get-balance.ts', {})).toEqual({ status: 200, trips: 2 });
  });

  it('GET /models: 1', async () => {
    expect(await roundTrips('functions/http/list-models.ts', {})).toEqual({ status: 200, trips: 1 });
  });

  // The key's status is read again just before the charge: its spend is sharded, so the charge's transaction no
  // longer holds the key item that carries it (docs/money-and-ledger.md, "Balance shards").
  it('POST /video/generate: 3 (key, model and rate count together; the key again; then the transaction)', async () => {
    const body = JSON.stringify({ model: 'seedance-1.5-pro', prompt: 'a red fox in the snow', duration: 5 });
    const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
    expect(await roundTrips('functions/http/submit-task.ts', { body, headers })).toEqual({ status: 200, trips: 3 });
  });
});
