/**
 * SDK clients, one per process (module singletons reused across invocations). Endpoints come from the
 * SDK's own settings (AWS_ENDPOINT_URL_DYNAMODB, _S3, _SFN, _SQS), so the same code runs against AWS
 * or the local emulators without knowing which.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { S3Client } from '@aws-sdk/client-s3';
import { SFNClient } from '@aws-sdk/client-sfn';
import { SQSClient } from '@aws-sdk/client-sqs';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { optionalEnv } from './config.js';

let documentClient: DynamoDBDocumentClient | undefined;
let s3: S3Client | undefined;
let sfn: SFNClient | undefined;
let sqs: SQSClient | undefined;

export function dynamoDocumentClient(): DynamoDBDocumentClient {
  documentClient ??= DynamoDBDocumentClient.from(new DynamoDBClient({}), {
    marshallOptions: { removeUndefinedValues: true },
  });
  return documentClient;
}

export function s3Client(): S3Client {
  // Path-style addressing for endpoints without wildcard DNS (the local emulator); AWS itself works either way.
  s3 ??= new S3Client({ forcePathStyle: optionalEnv('S3_FORCE_PATH_STYLE', 'false') === 'true' });
  return s3;
}

export function sfnClient(): SFNClient {
  sfn ??= new SFNClient({});
  return sfn;
}

export function sqsClient(): SQSClient {
  sqs ??= new SQSClient({});
  return sqs;
}
