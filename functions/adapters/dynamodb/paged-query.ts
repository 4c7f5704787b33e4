/**
 * Every page of a Query or Scan: DynamoDB returns at most 1 MB a call and a LastEvaluatedKey to go on from,
 * so a read of all that matches follows it until it is absent. Pages come one at a time, as they are read.
 */
import type {
  DynamoDBDocumentClient,
  QueryCommandInput,
  QueryCommandOutput,
  ScanCommandInput,
  ScanCommandOutput,
} from '@aws-sdk/lib-dynamodb';
import { QueryCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';

type StartKey = Record<string, unknown> | undefined;

export function queryPages(db: DynamoDBDocumentClient, input: QueryCommandInput): AsyncGenerator<QueryCommandOutput> {
  return pages((start) => db.send(new QueryCommand({ ...input, ExclusiveStartKey: start })));
}

export function scanPages(db: DynamoDBDocumentClient, input: ScanCommandInput): AsyncGenerator<ScanCommandOutput> {
  return pages((start) => db.send(new ScanCommand({ ...input, ExclusiveStartKey: start })));
}

/** Every item of a Query or Scan, as `T`. */
export async function allItems<T>(pages: AsyncIterable<{ Items?: Record<string, unknown>[] }>): Promise<T[]> {
  const items: T[] = [];
  for await (const page of pages) items.push(...((page.Items ?? []) as T[]));
  return items;
}

async function* pages<P extends { LastEvaluatedKey?: StartKey }>(read: (start: StartKey) => Promise<P>) {
  let start: StartKey;
  do {
    const page = await read(start);
    yield page;
    start = page.LastEvaluatedKey;
  } while (start);
}
