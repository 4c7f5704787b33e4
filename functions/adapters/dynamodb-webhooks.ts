/**
 * Webhook state in DynamoDB: each account's signing secrets (on the account item) and each task's
 * delivery attempts (on the task item).
 *
 * Secrets are Standard Webhooks `whsec_<base64 of 32 random bytes>`, created on first use by a
 * conditional write, so two creators racing agree on one. A rotation keeps the old secret signing too
 * for 24 h (`webhook_previous_secret` until `webhook_previous_until`).
 */
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { randomBytes } from 'node:crypto';
import type { WebhookAttemptLog, WebhookSecretStore } from '../core/ports/webhooks.js';
import type { WebhookAttemptRecord } from '../core/webhook.js';

export const WEBHOOK_SECRET_PREFIX = 'whsec_';
/** How long a rotated-out secret keeps signing alongside the new one. */
export const WEBHOOK_ROTATION_OVERLAP_MS = 24 * 60 * 60 * 1000;

export function generateWebhookSecret(): string {
  return `${WEBHOOK_SECRET_PREFIX}${randomBytes(32).toString('base64')}`;
}

interface AccountSecrets {
  account_id: string;
  webhook_secret?: string;
  webhook_previous_secret?: string;
  webhook_previous_until?: string;
}

export class AccountNotFoundError extends Error {
  override readonly name = 'AccountNotFoundError';
}

export class ConcurrentRotationError extends Error {
  override readonly name = 'ConcurrentRotationError';
}

export class DynamoDbWebhookSecrets implements WebhookSecretStore {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly accountsTable: string,
  ) {}

  /** The account's current secret, created if it has none. Throws AccountNotFoundError. */
  async currentSecret(accountId: string): Promise<string> {
    const item = await this.read(accountId);
    if (!item) throw new AccountNotFoundError(`account ${accountId} does not exist`);
    return item.webhook_secret ?? this.create(accountId);
  }

  async signingSecrets(accountId: string, now: Date): Promise<string[] | undefined> {
    const item = await this.read(accountId);
    if (!item) return undefined;
    const current = item.webhook_secret ?? (await this.create(accountId));
    const previous = item.webhook_previous_secret;
    const overlapping =
      previous && item.webhook_previous_until && Date.parse(item.webhook_previous_until) > now.getTime();
    return overlapping && previous !== current ? [current, previous] : [current];
  }

  /**
   * A new current secret; the old one keeps signing for 24 h. With no secret yet, this just creates one.
   * Conditional on the secret it replaces, so two rotations at once cannot lose one (the second fails).
   */
  async rotate(accountId: string, now: Date): Promise<{ secret: string; previousUntil: string | null }> {
    const item = await this.read(accountId);
    if (!item) throw new AccountNotFoundError(`account ${accountId} does not exist`);
    if (!item.webhook_secret) return { secret: await this.create(accountId), previousUntil: null };
    const secret = generateWebhookSecret();
    const previousUntil = new Date(now.getTime() + WEBHOOK_ROTATION_OVERLAP_MS).toISOString();
    try {
      await this.db.send(
        new UpdateCommand({
          TableName: this.accountsTable,
          Key: { account_id: accountId },
          UpdateExpression:
            'SET webhook_secret = :new, webhook_previous_secret = :old, webhook_previous_until = :until, webhook_secret_created_at = :now',
          ConditionExpression: 'webhook_secret = :old',
          ExpressionAttributeValues: {
            ':new': secret,
            ':old': item.webhook_secret,
            ':until': previousUntil,
            ':now': now.toISOString(),
          },
        }),
      );
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) {
        throw new ConcurrentRotationError('the secret changed while rotating it: run the rotation again');
      }
      throw error;
    }
    return { secret, previousUntil };
  }

  private async read(accountId: string): Promise<AccountSecrets | undefined> {
    const { Item } = await this.db.send(
      new GetCommand({
        TableName: this.accountsTable,
        Key: { account_id: accountId },
        ConsistentRead: true,
        ProjectionExpression: 'account_id, webhook_secret, webhook_previous_secret, webhook_previous_until',
      }),
    );
    return Item as AccountSecrets | undefined;
  }

  /** Creates the first secret; if another creator won the race, returns theirs. */
  private async create(accountId: string): Promise<string> {
    const secret = generateWebhookSecret();
    try {
      await this.db.send(
        new UpdateCommand({
          TableName: this.accountsTable,
          Key: { account_id: accountId },
          UpdateExpression: 'SET webhook_secret = :secret, webhook_secret_created_at = :now',
          ConditionExpression: 'attribute_exists(account_id) AND attribute_not_exists(webhook_secret)',
          ExpressionAttributeValues: { ':secret': secret, ':now': new Date().toISOString() },
        }),
      );
      return secret;
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
      const item = await this.read(accountId);
      if (!item?.webhook_secret) throw new AccountNotFoundError(`account ${accountId} does not exist`);
      return item.webhook_secret;
    }
  }
}

export class DynamoDbWebhookAttemptLog implements WebhookAttemptLog {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly tasksTable: string,
  ) {}

  async record(taskId: string, attempt: WebhookAttemptRecord): Promise<void> {
    const sets = [
      'webhook_state = :state',
      'webhook_last_attempt_at = :at',
      'webhook_last_status_code = :code',
      'webhook_last_error = :error',
    ];
    if (attempt.state === 'delivered') sets.push('webhook_delivered_at = :at');
    try {
      await this.db.send(
        new UpdateCommand({
          TableName: this.tasksTable,
          Key: { task_id: taskId },
          UpdateExpression: `SET ${sets.join(', ')} ADD webhook_attempts :one`,
          // A straggling duplicate must not turn a delivered event back into a failing one.
          ConditionExpression:
            'attribute_exists(task_id) AND (attribute_not_exists(webhook_state) OR webhook_state <> :delivered)',
          ExpressionAttributeValues: {
            ':state': attempt.state,
            ':at': attempt.at,
            ':code': attempt.statusCode,
            ':error': attempt.error,
            ':one': 1,
            ':delivered': 'delivered',
          },
        }),
      );
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
    }
  }
}
