/**
 * Composition roots for uploads: the API side (records, presigned URLs, the submit's check; no S3 client, see
 * s3-upload-storage.ts) and the workflow side (PrepareInputs: the files, ffmpeg, the upstream's URLs).
 */
import { UploadChecks } from '../core/use-cases/resolve-uploads.js';
import { readEnv } from './config.js';
import { dynamoDocumentClient } from './dynamodb-client.js';
import { DynamoDbTaskInputs, DynamoDbUploadRepository } from './dynamodb-uploads.js';
import { S3UploadStorage } from './s3-upload-storage.js';
import { S3UrlSigner } from './s3-url-signer.js';

export function uploadRepository() {
  return new DynamoDbUploadRepository(dynamoDocumentClient(), readEnv('uploadsTable'), readEnv('idempotencyTable'));
}

/** Signs S3 requests with the function's own credentials: upload PUTs, checks, the workflow's reads and writes. */
export function uploadObjectSigner() {
  const endpoint = readEnv('s3Endpoint') || readEnv('awsEndpoint');
  return new S3UrlSigner({
    bucket: readEnv('videoBucket'),
    region: readEnv('region'),
    ...(endpoint ? { endpoint } : {}),
    forcePathStyle: readEnv('s3ForcePathStyle'),
  });
}

/** Presigned PUTs and the checks' ranged GETs. */
export function uploadStorage() {
  return new S3UploadStorage(uploadObjectSigner());
}

/** The submit's check of the uploads it names. */
export function uploadChecks() {
  return new UploadChecks({ uploads: uploadRepository(), storage: uploadStorage(), now: () => new Date() });
}

export function taskInputs() {
  return new DynamoDbTaskInputs(dynamoDocumentClient(), readEnv('tasksTable'));
}
