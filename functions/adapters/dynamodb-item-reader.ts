/**
 * Consistent single-item reads, coalesced: the reads a request starts in the same tick (the caller's key
 * and the task it asks for, say) go to DynamoDB as one BatchGetItem instead of one GetItem each. One
 * request instead of two is less work for the table's front end and for the function's CPU (one signed
 * request, one response to parse); a read alone still goes out as a plain GetItem. DataLoader does the
 * per-tick batching; it caches nothing here, so every read is fresh.
 */
import DataLoader from 'dataloader';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { BatchGetCommand, GetCommand } from '@aws-sdk/lib-dynamodb';

type Item = Record<string, unknown>;
type ItemKey = Record<string, string>;

interface ItemRequest {
  table: string;
  key: ItemKey;
}

/** BatchGetItem takes at most 100 keys; one request rarely makes more than three reads at once. */
const MAX_BATCH = 100;
/** UnprocessedKeys (throttling) are asked for again, with a short growing pause, this many times. */
const UNPROCESSED_RETRIES = 5;

export class DynamoDbItemReader {
  private readonly loader: DataLoader<ItemRequest, Item | undefined, string>;

  constructor(private readonly db: DynamoDBDocumentClient) {
    this.loader = new DataLoader((requests) => this.readAll(requests), {
      cache: false,
      maxBatchSize: MAX_BATCH,
      cacheKeyFn: requestId,
    });
  }

  /** The item with this key (strongly consistent), or undefined. */
  get(table: string, key: ItemKey): Promise<Item | undefined> {
    return this.loader.load({ table, key });
  }

  private async readAll(requests: readonly ItemRequest[]): Promise<(Item | undefined)[]> {
    if (requests.length === 1) {
      const [{ table, key }] = requests as [ItemRequest];
      const { Item } = await this.db.send(new GetCommand({ TableName: table, Key: key, ConsistentRead: true }));
      return [Item];
    }
    const found = new Map<string, Item>();
    let pending: Record<string, { Keys: ItemKey[]; ConsistentRead: true }> = {};
    // BatchGetItem refuses a key listed twice; one read of it answers every caller.
    const unique = new Map(requests.map((request) => [requestId(request), request]));
    for (const { table, key } of unique.values()) {
      (pending[table] ??= { Keys: [], ConsistentRead: true }).Keys.push(key);
    }
    const keyNames = new Map(requests.map(({ table, key }) => [table, Object.keys(key)]));
    for (let attempt = 0; Object.keys(pending).length > 0; attempt += 1) {
      if (attempt > UNPROCESSED_RETRIES) throw new Error('DynamoDB left keys unprocessed after retries');
      if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, 20 * 2 ** attempt));
      const { Responses, UnprocessedKeys } = await this.db.send(new BatchGetCommand({ RequestItems: pending }));
      for (const [table, items] of Object.entries(Responses ?? {})) {
        const names = keyNames.get(table) ?? [];
        for (const item of items) found.set(requestId({ table, key: pick(item, names) }), item);
      }
      pending = (UnprocessedKeys ?? {}) as typeof pending;
    }
    return requests.map((request) => found.get(requestId(request)));
  }
}

function pick(item: Item, names: readonly string[]): ItemKey {
  return Object.fromEntries(names.map((name) => [name, String(item[name])]));
}

/** Table and key attributes in a fixed order, so a returned item finds the read that asked for it. */
function requestId({ table, key }: ItemRequest): string {
  return JSON.stringify([
    table,
    ...Object.keys(key)
      .sort()
      .map((name) => [name, key[name]]),
  ]);
}
