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
import { buildApp } from 'fauxqs';
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { pathToFileURL } from 'node:url';
import { TABLES } from '../../../functions/adapters/runtime/resources.js';
import type { TableId } from '../../../functions/adapters/runtime/resources.js';
import { REPOSITORY_ROOT } from '../../ship/repository-root.js';
import { dynamoDbLocalCommand } from './dynamodb-loopback.js';
import { freePort } from './free-port.js';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '../../ship/sam-local/local-aws.js';

export interface DynamoDbLocal {
  endpoint: string;
  stop(): Promise<void>;
}

/**
 * Starts DynamoDB Local on a free port of 127.0.0.1 (lib/dev/local/dynamodb-loopback.ts); persistent under
 * `dataDir` or in memory when it is undefined.
 */
export async function startDynamoDbLocal(dataDir: string | undefined): Promise<DynamoDbLocal> {
  const port = await freePort();
  if (dataDir) mkdirSync(dataDir, { recursive: true });
  const { command, args, cwd } = await dynamoDbLocalCommand(port, dataDir);
  const child: ChildProcess = spawn(command, args, { stdio: 'pipe', cwd });
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
      // A guard against a JVM that never answers, generous for a machine other work shares.
    }, 180_000);
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
 * fauxqs's own startFauxqs listens on 0.0.0.0 whatever it is told, so this builds its app (the exported
 * buildApp) and listens on 127.0.0.1 itself. S3 objects persist as files under `s3Dir` when given; SQS
 * always stays in memory (see docs/local-stack.md). `port` 0 picks a free one.
 */
export async function startS3AndSqs(s3Dir: string | undefined, port = 0): Promise<Fauxqs> {
  if (s3Dir) mkdirSync(s3Dir, { recursive: true });
  const app = s3Dir ? await withFileStorage(s3Dir) : buildApp({ logger: false });
  const address = await app.listen({ port, host: '127.0.0.1' });
  const bound = Number(new URL(address).port);
  return { endpoint: `http://127.0.0.1:${bound}`, port: bound, stop: () => app.close() };
}

type FauxqsStores = NonNullable<NonNullable<Parameters<typeof buildApp>[0]>['stores']>;
interface FileS3Persistence {
  loadS3(store: FauxqsStores['s3Store']): void;
  close(): void;
}

/**
 * The app with S3 objects kept as files, wired as startFauxqs wires its `s3StorageDir`. The stores and the
 * file persistence are not exported by the package, so they are loaded from its files (fauxqs is pinned;
 * test/integration/loopback-only.test.ts keeps an object across a restart through them).
 */
async function withFileStorage(s3Dir: string): Promise<ReturnType<typeof buildApp>> {
  const dist = join(REPOSITORY_ROOT, 'node_modules', 'fauxqs', 'dist');
  const load = async <T>(file: string, name: string): Promise<T> =>
    ((await import(pathToFileURL(join(dist, file)).href)) as Record<string, T>)[name]!;
  const S3Store = await load<new () => FauxqsStores['s3Store']>('s3/s3Store.js', 'S3Store');
  const SqsStore = await load<new () => FauxqsStores['sqsStore']>('sqs/sqsStore.js', 'SqsStore');
  const SnsStore = await load<new () => FauxqsStores['snsStore']>('sns/snsStore.js', 'SnsStore');
  const Persistence = await load<new (dir: string) => FileS3Persistence>(
    's3/fileS3Persistence.js',
    'FileS3Persistence',
  );
  const s3Store = new S3Store();
  const persistence = new Persistence(s3Dir);
  // Loaded before it is attached, as startFauxqs does, so loading writes nothing back.
  persistence.loadS3(s3Store);
  s3Store.persistence = persistence as unknown as FauxqsStores['s3Store']['persistence'];
  const app = buildApp({ logger: false, stores: { s3Store, sqsStore: new SqsStore(), snsStore: new SnsStore() } });
  app.addHook('preClose', () => persistence.close());
  return app;
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
