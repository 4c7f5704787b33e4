/**
 * Composition roots for uploads: the API side (records, presigned URLs, the submit's check; no S3 client, see
 * s3-upload-storage.ts) and the workflow side (PrepareInputs: the files, ffmpeg, the upstream's URLs).
 */
import { UploadChecks } from '../../core/use-cases/resolve-uploads.js';
import { readEnv } from '../runtime/config.js';
import { dynamoDocumentClient } from '../dynamodb/client.js';
import { DynamoDbTaskInputs, DynamoDbUploadRepository } from '../dynamodb/uploads.js';
import { S3UploadStorage } from '../storage/s3-upload-storage.js';
import { s3UrlSigner } from '../storage/s3-url-signer.js';

export function uploadRepository() {
  return new DynamoDbUploadRepository(dynamoDocumentClient(), readEnv('uploadsTable'), readEnv('idempotencyTable'));
}

/** Upload PUTs, the checks' ranged GETs, the workflow's reads and writes: signed with the function's credentials. */
export const uploadObjectSigner = s3UrlSigner;

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
