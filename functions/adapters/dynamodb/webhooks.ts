/**
 * Webhook state in DynamoDB: each account's signing secrets (on the account item), each task's delivery
 * attempts and try claims (on the task item), the pending-webhooks index the requeuer reads. Secrets are
 * Standard Webhooks `whsec_<base64 of 32 random bytes>`, created on first use by a conditional write (two
 * racing creators agree on one); a rotation keeps the old one signing for 24 h (`webhook_previous_*`).
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { randomBytes } from 'node:crypto';
import type {
  PendingWebhookEntry,
  PendingWebhooks,
  WebhookAttemptLog,
  WebhookSecretStore,
} from '../../core/ports/webhooks.js';
import type { TaskRecord } from '../../core/task.js';
import type { WebhookAttemptRecord } from '../../core/webhook.js';
import { WEBHOOK_PENDING_SHARDS } from '../../core/webhook.js';
import { TASKS_WEBHOOK_PENDING_INDEX } from '../runtime/resources.js';
import { namedError } from '../../core/named-error.js';
import { conditionalUpdate, isConditionFailed } from './conditional-write.js';
import { getItem } from './consistent-read.js';
import { queryPages } from './paged-query.js';

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

export class AccountNotFoundError extends namedError('AccountNotFoundError') {}

export class ConcurrentRotationError extends namedError('ConcurrentRotationError') {}

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
    const rotated = await conditionalUpdate(this.db, {
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
    });
    if (!rotated) throw new ConcurrentRotationError('the secret changed while rotating it: run the rotation again');
    return { secret, previousUntil };
  }

  /** When the rotated-out secret stops signing, while it still does; else null. */
  async previousUntil(accountId: string, now: Date): Promise<string | null> {
    const until = (await this.read(accountId))?.webhook_previous_until;
    return until && Date.parse(until) > now.getTime() ? until : null;
  }

  private read(accountId: string): Promise<AccountSecrets | undefined> {
    return getItem(
      this.db,
      this.accountsTable,
      { account_id: accountId },
      'account_id, webhook_secret, webhook_previous_secret, webhook_previous_until',
    );
  }

  /** Creates the first secret; if another creator won the race, returns theirs. */
  private async create(accountId: string): Promise<string> {
    const secret = generateWebhookSecret();
    const created = await conditionalUpdate(this.db, {
      TableName: this.accountsTable,
      Key: { account_id: accountId },
      UpdateExpression: 'SET webhook_secret = :secret, webhook_secret_created_at = :now',
      ConditionExpression: 'attribute_exists(account_id) AND attribute_not_exists(webhook_secret)',
      ExpressionAttributeValues: { ':secret': secret, ':now': new Date().toISOString() },
    });
    if (created) return secret;
    const item = await this.read(accountId);
    if (!item?.webhook_secret) throw new AccountNotFoundError(`account ${accountId} does not exist`);
    return item.webhook_secret;
  }
}

/** The task still counts `previous` tries (no try recorded yet reads as an absent count). */
function sameCount(previous: number): string {
  return previous === 0
    ? '(attribute_not_exists(webhook_attempts) OR webhook_attempts = :previous)'
    : 'webhook_attempts = :previous';
}

const NOT_DELIVERED = '(attribute_not_exists(webhook_state) OR webhook_state <> :delivered)';

export class DynamoDbWebhookAttemptLog implements WebhookAttemptLog {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly tasksTable: string,
  ) {}

  async claim(taskId: string, previousAttempts: number, now: Date, until: Date): Promise<boolean> {
    return conditionalUpdate(this.db, {
      TableName: this.tasksTable,
      Key: { task_id: taskId },
      UpdateExpression: 'SET webhook_claim_attempt = :attempt, webhook_claimed_until = :until',
      // A claim of an earlier try, or one that has lapsed (its run died), does not hold this try off.
      ConditionExpression:
        `attribute_exists(task_id) AND ${sameCount(previousAttempts)} AND ${NOT_DELIVERED} AND ` +
        '(attribute_not_exists(webhook_claimed_until) OR webhook_claim_attempt <> :attempt OR webhook_claimed_until <= :now)',
      ExpressionAttributeValues: {
        ':attempt': previousAttempts + 1,
        ':previous': previousAttempts,
        ':delivered': 'delivered',
        ':until': until.toISOString(),
        ':now': now.toISOString(),
      },
    });
  }

  async record(taskId: string, previousAttempts: number, attempt: WebhookAttemptRecord): Promise<boolean> {
    const sets = [
      'webhook_state = :state',
      'webhook_attempts = :attempts',
      'webhook_last_attempt_at = :at',
      'webhook_last_status_code = :code',
      'webhook_last_error = :error',
    ];
    const values: Record<string, unknown> = {
      ':state': attempt.state,
      ':attempts': previousAttempts + 1,
      ':previous': previousAttempts,
      ':at': attempt.at,
      ':code': attempt.statusCode,
      ':error': attempt.error,
      ':delivered': 'delivered',
    };
    if (attempt.state === 'delivered') sets.push('webhook_delivered_at = :at');
    // The try is made: its claim has done its work.
    const removes = ['webhook_claim_attempt', 'webhook_claimed_until'];
    if (attempt.state === 'retrying') {
      sets.push('webhook_due_at = :due');
      values[':due'] = attempt.nextTryAt ?? attempt.at;
    } else {
      // Settled: out of the pending-webhooks index (sparse: an item without its keys is not in it).
      removes.push('webhook_pending', 'webhook_due_at');
    }
    return conditionalUpdate(this.db, {
      TableName: this.tasksTable,
      Key: { task_id: taskId },
      UpdateExpression: `SET ${sets.join(', ')} REMOVE ${removes.join(', ')}`,
      ConditionExpression: `attribute_exists(task_id) AND ${sameCount(previousAttempts)} AND ${NOT_DELIVERED}`,
      ExpressionAttributeValues: values,
    });
  }
}

/**
 * The pending-webhooks index (TASKS_WEBHOOK_PENDING_INDEX): one query per shard, reading only the keys and
 * the two attributes the index projects, so DynamoDB Local (which projects everything) answers the same.
 */
export class DynamoDbPendingWebhooks implements PendingWebhooks {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly tasksTable: string,
  ) {}

  async *findOverdue(before: string): AsyncIterable<PendingWebhookEntry> {
    for (const shard of WEBHOOK_PENDING_SHARDS) {
      const pages = queryPages(this.db, {
        TableName: this.tasksTable,
        IndexName: TASKS_WEBHOOK_PENDING_INDEX.name,
        KeyConditionExpression: 'webhook_pending = :shard AND webhook_due_at < :before',
        // Tasks still in flight are in the index too (their keys are set at submit): not due yet.
        FilterExpression: '#status IN (:success, :failed, :refunded) AND updated_at < :before',
        ProjectionExpression: 'task_id, #status, webhook_due_at',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: {
          ':shard': shard,
          ':before': before,
          ':success': 'success',
          ':failed': 'failed',
          ':refunded': 'refunded',
        },
      });
      for await (const page of pages) {
        for (const item of page.Items ?? []) yield item as PendingWebhookEntry;
      }
    }
  }

  async claim(taskId: string, seenDueAt: string, nextDueAt: string): Promise<TaskRecord | undefined> {
    try {
      const { Attributes } = await this.db.send(
        new UpdateCommand({
          TableName: this.tasksTable,
          Key: { task_id: taskId },
          UpdateExpression: 'SET webhook_due_at = :next',
          ConditionExpression: 'attribute_exists(webhook_pending) AND webhook_due_at = :seen',
          ExpressionAttributeValues: { ':seen': seenDueAt, ':next': nextDueAt },
          ReturnValues: 'ALL_NEW',
        }),
      );
      return Attributes as TaskRecord;
    } catch (error) {
      if (isConditionFailed(error)) return undefined;
      throw error;
    }
  }

  async forget(taskId: string): Promise<void> {
    await conditionalUpdate(this.db, {
      TableName: this.tasksTable,
      Key: { task_id: taskId },
      UpdateExpression: 'REMOVE webhook_pending, webhook_due_at',
      // An update creates a missing item: never for a task that is gone.
      ConditionExpression: 'attribute_exists(task_id)',
    });
  }
}
