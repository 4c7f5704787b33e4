/**
 * An integration file's own DynamoDB Local (in memory) with the service's tables under a fresh prefix:
 * call at the top of the file; the fields are set once beforeAll has run, and everything stops afterAll.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll } from 'vitest';
import { createTables, startDynamoDbLocal } from '../../lib/local/emulators.js';
import type { DynamoDbLocal } from '../../lib/local/emulators.js';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '../../lib/local/local-aws.js';
import { physicalNames } from '../../functions/adapters/resources.js';

export interface TestDynamoDb {
  dynamo: DynamoDbLocal;
  client: DynamoDBClient;
  /** The document client as the adapters build it (undefined attributes removed). */
  db: DynamoDBDocumentClient;
  names: ReturnType<typeof physicalNames>;
}

export function useDynamoDbLocal(prefix: string): TestDynamoDb {
  const local = { names: physicalNames(`${prefix}-${randomUUID().slice(0, 8)}`) } as TestDynamoDb;
  beforeAll(async () => {
    local.dynamo = await startDynamoDbLocal(undefined);
    local.client = new DynamoDBClient({
      endpoint: local.dynamo.endpoint,
      region: LOCAL_REGION,
      credentials: LOCAL_CREDENTIALS,
    });
    local.db = DynamoDBDocumentClient.from(local.client, { marshallOptions: { removeUndefinedValues: true } });
    await createTables(local.client, local.names.tables);
  });
  afterAll(async () => {
    local.client?.destroy();
    await local.dynamo?.stop();
  });
  return local;
}
