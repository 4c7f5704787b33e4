/**
 * Records an index needs but that lack its keys, because the release that wrote them had no such index: each
 * rule names the records (a filter) and what they get, written as the live writers write it. Its condition is
 * the filter again, so a record that moved on meanwhile is skipped and a second run writes nothing.
 * Indexes keyed by what every record already holds (by-account, slot-holders, by-time) need none: DynamoDB
 * fills a new index from the items that hold its keys. docs/operations.md, "Upgrades".
 */
import type { TableId } from '../runtime/resources.js';
import { TASKS_IN_FLIGHT_INDEX, TASKS_WEBHOOK_PENDING_INDEX } from '../runtime/resources.js';
import { inFlightShard } from '../dynamodb/task-repository.js';
import { pendingWebhookKeys } from '../../core/webhook.js';

export interface Backfill {
  table: TableId;
  index: string;
  /** A condition expression: the records this backfill rewrites (and only while it holds). */
  filter: string;
  names: Record<string, string>;
  values: Record<string, unknown>;
  /** The attributes to set on one record. */
  keys(record: Record<string, unknown>): Record<string, string>;
}

export const BACKFILLS: readonly Backfill[] = [
  {
    // A task in flight carries its shard (the task repository sets it on every write of a task in flight).
    table: 'tasks',
    index: TASKS_IN_FLIGHT_INDEX.name,
    filter:
      'attribute_not_exists(#key) AND attribute_exists(updated_at) AND #status IN (:pending, :running, :transferring)',
    names: { '#key': TASKS_IN_FLIGHT_INDEX.partitionKey, '#status': 'status' },
    values: { ':pending': 'pending', ':running': 'running', ':transferring': 'transferring' },
    keys: (task) => ({ [TASKS_IN_FLIGHT_INDEX.partitionKey]: inFlightShard(String(task['task_id'])) }),
  },
  {
    // A task owing its webhook carries the pending-webhooks keys, due from its creation as the submit sets them.
    table: 'tasks',
    index: TASKS_WEBHOOK_PENDING_INDEX.name,
    filter:
      'attribute_not_exists(#key) AND attribute_type(#generation.#url, :string) AND attribute_exists(created_at) AND ' +
      '(attribute_not_exists(#state) OR NOT (#state IN (:delivered, :failed)))',
    names: {
      '#key': TASKS_WEBHOOK_PENDING_INDEX.partitionKey,
      '#generation': 'generation',
      '#url': 'webhookUrl',
      '#state': 'webhook_state',
    },
    values: { ':string': 'S', ':delivered': 'delivered', ':failed': 'failed' },
    keys: (task) => pendingWebhookKeys(String(task['task_id']), String(task['created_at'])),
  },
];
