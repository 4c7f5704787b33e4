/** The SQS client, one per process. */
import { SQSClient } from '@aws-sdk/client-sqs';

let client: SQSClient | undefined;

export function sqsClient(): SQSClient {
  client ??= new SQSClient({});
  return client;
}
