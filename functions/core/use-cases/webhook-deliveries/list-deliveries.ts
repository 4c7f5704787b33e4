/**
 * GET /api/v1/webhook-deliveries (and the console's): the caller's webhook POSTs, newest first, or one task's
 * (docs/webhooks.md, "Delivery log"). Primary course: check the query (task_id, limit, cursor: a 400 naming the
 * field) → one read of the log → the page and the cursor of the next one.
 */
import type { WebhookDeliveryLog } from '../../ports/webhooks.js';
import { parseDeliveriesQuery, toDeliveryView } from '../../webhook-delivery.js';
import type { DeliveriesPage } from '../../webhook-delivery.js';
import type { AccountCaller } from '../authenticate.js';

export async function listDeliveries(
  caller: AccountCaller | Promise<AccountCaller>,
  query: Record<string, string | undefined> | undefined,
  deliveries: Pick<WebhookDeliveryLog, 'list'>,
): Promise<DeliveriesPage> {
  const { accountId } = await caller;
  const page = await deliveries.list(accountId, parseDeliveriesQuery(query));
  return { items: page.deliveries.map(toDeliveryView), next_cursor: page.next };
}
