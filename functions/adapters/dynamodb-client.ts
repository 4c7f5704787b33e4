/** The DynamoDB document client, one per process. The endpoint comes from the SDK's own settings. */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { DynamoDbItemReader } from './dynamodb-item-reader.js';

let client: DynamoDBDocumentClient | undefined;
let reader: DynamoDbItemReader | undefined;

export function dynamoDocumentClient(): DynamoDBDocumentClient {
  client ??= DynamoDBDocumentClient.from(new DynamoDBClient({}), { marshallOptions: { removeUndefinedValues: true } });
  return client;
}

/** One per process, so that reads from different repositories in one tick share a BatchGetItem. */
export function dynamoItemReader(): DynamoDbItemReader {
  reader ??= new DynamoDbItemReader(dynamoDocumentClient());
  return reader;
}
