/** Upload records (docs/api-contract.md, "Uploads") and the write that hands a task's prepared reference URLs to the upstream step. */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { PutCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import type { IdempotencyRecord } from '../../core/idempotency.js';
import type { UploadRepository } from '../../core/ports/uploads.js';
import type { PreparedReferences, TaskInputsStore } from '../../core/ports/task-inputs.js';
import type { UploadRecord } from '../../core/uploads.js';
import { conditionalUpdate } from './conditional-write.js';
import { getItem } from './consistent-read.js';
import { idempotencyKeyTaken, idempotencyPut } from './idempotency.js';

/** Where the upload transaction's idempotency record is (after the upload). */
const IDEMPOTENCY_ITEM = 1;

export class DynamoDbUploadRepository implements UploadRepository {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly table: string,
    private readonly idempotencyTable: string,
  ) {}

  async create(upload: UploadRecord, idempotency?: IdempotencyRecord): Promise<void> {
    const put = { TableName: this.table, Item: upload, ConditionExpression: 'attribute_not_exists(upload_id)' };
    if (!idempotency) {
      await this.db.send(new PutCommand(put));
      return;
    }
    try {
      await this.db.send(
        new TransactWriteCommand({
          TransactItems: [{ Put: put }, idempotencyPut(this.idempotencyTable, idempotency)],
        }),
      );
    } catch (error) {
      throw idempotencyKeyTaken(error, IDEMPOTENCY_ITEM) ?? error;
    }
  }

  get(uploadId: string): Promise<UploadRecord | undefined> {
    return getItem(this.db, this.table, { upload_id: uploadId });
  }
}

export class DynamoDbTaskInputs implements TaskInputsStore {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly tasksTable: string,
  ) {}

  async record(taskId: string, references: PreparedReferences): Promise<boolean> {
    return conditionalUpdate(this.db, {
      TableName: this.tasksTable,
      Key: { task_id: taskId },
      UpdateExpression:
        'SET generation.imageUrls = :images, generation.videoUrls = :videos, generation.audioUrls = :audios',
      // Only before its job exists: a task that ended meanwhile (a cancel) keeps what it had.
      ConditionExpression: '#status = :pending AND attribute_not_exists(upstream_job_id)',
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: {
        ':images': references.imageUrls,
        ':videos': references.videoUrls,
        ':audios': references.audioUrls,
        ':pending': 'pending',
      },
    });
  }
}
