/** Composition root for deleting a finished video (DELETE /api/v1/videos/{id}): its object and its task's mark. */
import { readEnv } from '../runtime/config.js';
import { dynamoDocumentClient } from '../dynamodb/client.js';
import { s3UrlSigner } from '../storage/s3-url-signer.js';
import { StoredVideoDeletion } from '../storage/video-deletion.js';

export function videoDeletion() {
  return new StoredVideoDeletion(s3UrlSigner(), dynamoDocumentClient(), readEnv('tasksTable'));
}
