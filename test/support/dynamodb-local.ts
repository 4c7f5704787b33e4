/**
 * The service's tables under a fresh prefix, for one integration file, in the DynamoDB Local the run starts
 * for them (test/support/shared-stack-setup.ts): call at the top of the file; the fields are set once
 * beforeAll has run. Files never share a table, so one JVM serves them all.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, inject } from 'vitest';
import { createTables } from '../../lib/dev/local/emulators.js';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '../../lib/ship/sam-local/local-aws.js';
import { physicalNames } from '../../functions/adapters/runtime/resources.js';

export interface TestDynamoDb {
  dynamo: { endpoint: string };
  client: DynamoDBClient;
  /** The document client as the adapters build it (undefined attributes removed). */
  db: DynamoDBDocumentClient;
  names: ReturnType<typeof physicalNames>;
}

export function useDynamoDbLocal(prefix: string): TestDynamoDb {
  const local = { names: physicalNames(`${prefix}-${randomUUID().slice(0, 8)}`) } as TestDynamoDb;
  beforeAll(async () => {
    const endpoint = inject('integrationDynamoDb');
    if (!endpoint) throw new Error('no DynamoDB Local in this run: its global setup skips runs of test/unit alone');
    local.dynamo = { endpoint };
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
  });
  return local;
}
