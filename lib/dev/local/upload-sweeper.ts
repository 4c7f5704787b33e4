/**
 * The local stand-in for the bucket's lifecycle rule on uploads (UPLOADS in functions/adapters/runtime/resources.ts;
 * in AWS, S3 deletes them): objects under the prefix older than 48 h are deleted, and upload records past
 * their expires_at (DynamoDB Local keeps TTL'd items). The service refuses an expired upload either way.
 */
import { DeleteObjectsCommand, ListObjectsV2Command } from '@aws-sdk/client-s3';
import type { S3Client } from '@aws-sdk/client-s3';
import { DeleteCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { UPLOADS } from '../../../functions/adapters/runtime/resources.js';
import { UPLOAD_RETENTION_SECONDS } from '../../../functions/core/uploads.js';

export interface UploadSweepTarget {
  s3: S3Client;
  bucket: string;
  db: DynamoDBDocumentClient;
  uploadsTable: string;
}

/** One sweep: what it deleted. */
export async function sweepUploads(
  target: UploadSweepTarget,
  now = new Date(),
): Promise<{ objects: number; records: number }> {
  const cutoff = now.getTime() - UPLOAD_RETENTION_SECONDS * 1000;
  let objects = 0;
  let token: string | undefined;
  do {
    const page = await target.s3.send(
      new ListObjectsV2Command({ Bucket: target.bucket, Prefix: UPLOADS.prefix, ContinuationToken: token }),
    );
    const old = (page.Contents ?? []).filter((object) => object.Key && (object.LastModified?.getTime() ?? 0) <= cutoff);
    if (old.length > 0) {
      await target.s3.send(
        new DeleteObjectsCommand({
          Bucket: target.bucket,
          Delete: { Objects: old.map((object) => ({ Key: object.Key as string })), Quiet: true },
        }),
      );
      objects += old.length;
    }
    token = page.IsTruncated ? page.NextContinuationToken : undefined;
  } while (token);

  let records = 0;
  let start: Record<string, unknown> | undefined;
  do {
    const page = await target.db.send(
      new ScanCommand({
        TableName: target.uploadsTable,
        FilterExpression: 'expires_at <= :now',
        ExpressionAttributeValues: { ':now': now.toISOString() },
        ProjectionExpression: 'upload_id',
        ExclusiveStartKey: start,
      }),
    );
    for (const item of page.Items ?? []) {
      await target.db.send(
        new DeleteCommand({ TableName: target.uploadsTable, Key: { upload_id: item['upload_id'] } }),
      );
      records += 1;
    }
    start = page.LastEvaluatedKey;
  } while (start);
  return { objects, records };
}

/** Sweeps now and then every `everyMs` until stopped; a failed sweep is reported and the next one tries again. */
export function startUploadSweeper(target: UploadSweepTarget, everyMs = 10 * 60_000): { stop(): Promise<void> } {
  let running: Promise<unknown> = Promise.resolve();
  const sweep = () => {
    running = sweepUploads(target).catch((error) => console.error('upload sweep failed:', error));
  };
  sweep();
  const timer = setInterval(sweep, everyMs).unref();
  return {
    stop: async () => {
      clearInterval(timer);
      await running;
    },
  };
}
