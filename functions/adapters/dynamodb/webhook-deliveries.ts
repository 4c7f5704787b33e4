/**
 * The webhook delivery log in DynamoDB (docs/webhooks.md, "Delivery log"): one item per POST under the account,
 * its id sorting by time, so an account's newest come first from the table itself and one task's from
 * WEBHOOK_DELIVERIES_BY_TASK_INDEX. TTL removes an item 30 days on (`expires_at`).
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { GetCommand, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { WebhookDeliveryLog } from '../../core/ports/webhooks.js';
import type { WebhookDeliveryRecord } from '../../core/webhook-delivery.js';
import { logger } from '../runtime/logger.js';
import { WEBHOOK_DELIVERIES_BY_TASK_INDEX } from '../runtime/resources.js';

export class DynamoDbWebhookDeliveries implements WebhookDeliveryLog {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly table: string,
  ) {}

  async record(delivery: WebhookDeliveryRecord): Promise<void> {
    try {
      await this.db.send(new PutCommand({ TableName: this.table, Item: delivery }));
    } catch (error) {
      // The try itself is on the task; only its line in the log is lost.
      logger.warn('webhook delivery not logged', { task_id: delivery.task_id, error });
    }
  }

  async list(
    accountId: string,
    query: { taskId?: string; limit: number; cursor?: string },
  ): Promise<{ deliveries: WebhookDeliveryRecord[]; next: string | null }> {
    const { taskId, limit, cursor } = query;
    const deliveries: WebhookDeliveryRecord[] = [];
    let startKey: Record<string, unknown> | undefined =
      cursor === undefined
        ? undefined
        : taskId
          ? { account_id: accountId, delivery_id: cursor, task_id: taskId }
          : { account_id: accountId, delivery_id: cursor };
    // A task's index holds only that task: its other accounts' items (none in practice) are filtered out.
    do {
      const page = await this.db.send(
        new QueryCommand({
          TableName: this.table,
          ...(taskId
            ? {
                IndexName: WEBHOOK_DELIVERIES_BY_TASK_INDEX.name,
                KeyConditionExpression: 'task_id = :task',
                FilterExpression: 'account_id = :account',
                ExpressionAttributeValues: { ':task': taskId, ':account': accountId },
              }
            : {
                KeyConditionExpression: 'account_id = :account',
                ExpressionAttributeValues: { ':account': accountId },
              }),
          ScanIndexForward: false,
          Limit: limit + 1 - deliveries.length,
          ExclusiveStartKey: startKey,
        }),
      );
      deliveries.push(...((page.Items ?? []) as WebhookDeliveryRecord[]));
      startKey = page.LastEvaluatedKey;
    } while (startKey && deliveries.length <= limit);
    const shown = deliveries.slice(0, limit);
    return { deliveries: shown, next: deliveries.length > limit ? (shown.at(-1)?.delivery_id ?? null) : null };
  }

  async get(accountId: string, deliveryId: string): Promise<WebhookDeliveryRecord | undefined> {
    const { Item } = await this.db.send(
      new GetCommand({ TableName: this.table, Key: { account_id: accountId, delivery_id: deliveryId } }),
    );
    return Item as WebhookDeliveryRecord | undefined;
  }
}
