/** The DynamoDB document client, one per process. The endpoint comes from the SDK's own settings. */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { DynamoDBClientConfig } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';

let client: DynamoDBDocumentClient | undefined;

export function dynamoDocumentClient(): DynamoDBDocumentClient {
  client ??= DynamoDBDocumentClient.from(new DynamoDBClient({}), { marshallOptions: { removeUndefinedValues: true } });
  return client;
}

/** A client of the caller's own (the admin CLI's: the local stack's endpoint, or AWS); `destroy` closes it. */
export function ownDocumentClient(config: DynamoDBClientConfig): {
  db: DynamoDBDocumentClient;
  client: DynamoDBClient;
  destroy: () => void;
} {
  const client = new DynamoDBClient(config);
  return { db: DynamoDBDocumentClient.from(client), client, destroy: () => client.destroy() };
}

/** One item by its key, strongly consistent: every read that decides something must see the last write. */
export async function getItem<T>(
  db: DynamoDBDocumentClient,
  table: string,
  key: Record<string, string>,
): Promise<T | undefined> {
  const { Item } = await db.send(new GetCommand({ TableName: table, Key: key, ConsistentRead: true }));
  return Item as T | undefined;
}
