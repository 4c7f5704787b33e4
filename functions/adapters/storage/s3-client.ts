/** The S3 client, one per process. */
import { S3Client } from '@aws-sdk/client-s3';
import { readEnv } from '../runtime/config.js';

let client: S3Client | undefined;

export function s3Client(): S3Client {
  // Path-style addressing for endpoints without wildcard DNS (the local emulator); AWS itself works either way.
  client ??= new S3Client({ forcePathStyle: readEnv('s3ForcePathStyle') });
  return client;
}
