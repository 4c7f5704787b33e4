/**
 * A finished video deleted at its owner's request (docs/openai-videos.md, "Delete"): the object removed through
 * a URL signed for its DELETE (no S3 client in the bundle, as s3-upload-storage.ts), then the task marked.
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { VideoDeletion } from '../../core/ports/video-storage.js';
import type { S3UrlSigner } from './s3-url-signer.js';

const SIGNED_FOR_SECONDS = 60;
const DELETE_TIMEOUT_MS = 5_000;

export class StoredVideoDeletion implements VideoDeletion {
  constructor(
    private readonly signer: S3UrlSigner,
    private readonly db: DynamoDBDocumentClient,
    private readonly tasksTable: string,
  ) {}

  async deleteObject(key: string): Promise<void> {
    const url = await this.signer.signDelete(key, { expiresInSeconds: SIGNED_FOR_SECONDS, now: new Date() });
    const response = await fetch(url, { method: 'DELETE', signal: AbortSignal.timeout(DELETE_TIMEOUT_MS) });
    await response.body?.cancel();
    // S3 answers 204 whether or not the key was there.
    if (!response.ok && response.status !== 404) throw new Error(`deleting video ${key} answered ${response.status}`);
  }

  async markDeleted(taskId: string, deletedAt: string): Promise<void> {
    await this.db.send(
      new UpdateCommand({
        TableName: this.tasksTable,
        Key: { task_id: taskId },
        UpdateExpression: 'SET video_deleted_at = :at REMOVE video_key, video_url, video_url_expires_at',
        ConditionExpression: '#status = :success',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: { ':at': deletedAt, ':success': 'success' },
      }),
    );
  }
}
