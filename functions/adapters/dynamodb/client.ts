/** The DynamoDB document client, one per process. The endpoint comes from the SDK's own settings. */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { DynamoDBClientConfig } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

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
