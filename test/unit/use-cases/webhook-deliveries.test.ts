/** The delivery log's routes: the list's query and pages, and a redeliver (functions/core/use-cases/webhook-deliveries/). */
import { describe, expect, it } from 'vitest';
import { InvalidRequestError, NotFoundError } from '../../../functions/core/api-error.js';
import { listDeliveries } from '../../../functions/core/use-cases/webhook-deliveries/list-deliveries.js';
import { redeliver } from '../../../functions/core/use-cases/webhook-deliveries/redeliver.js';
import { deliveryRecord } from '../../../functions/core/webhook-delivery.js';
import { TASK_ID } from '../../support/task-records.js';
import {
  CountingSigner,
  HOOK,
  MemoryWebhookDeliveries,
  MemoryWebhookSecrets,
  MemoryWebhookTasks,
  ScriptedSender,
  webhookTask,
} from '../webhook-support.js';

const NOW = new Date('2026-11-21T10:05:00.000Z');
const TASK = webhookTask('failed', { finished_at: '2026-11-21T10:03:00.000Z', error_message: 'refused' });
const caller = { accountId: TASK.account_id };

function logged(deliveries: MemoryWebhookDeliveries, minute: number, taskId = TASK_ID) {
  const record = deliveryRecord({
    accountId: TASK.account_id,
    webhookId: 'msg_x_failed',
    event: 'task.failed',
    taskId,
    url: HOOK,
    at: new Date(NOW.getTime() + minute * 60_000),
    latencyMs: 12,
    result: { kind: 'response', statusCode: 500 },
    error: null,
    outcome: 'retrying',
  });
  void deliveries.record(record);
  return record;
}

describe('listDeliveries', () => {
  it('pages newest first, one task only when asked, and refuses a bad query naming the field', async () => {
    const deliveries = new MemoryWebhookDeliveries();
    const records = [0, 1, 2].map((minute) => logged(deliveries, minute));
    logged(deliveries, 3, '00000000-0000-4000-8000-000000000000');
    const first = await listDeliveries(caller, { task_id: TASK_ID, limit: '2' }, deliveries);
    expect(first.items.map((item) => item.id)).toEqual([records[2]!.delivery_id, records[1]!.delivery_id]);
    expect(first.items[0]).toMatchObject({ status_code: 500, error: 'HTTP 500', latency_ms: 12, task_id: TASK_ID });
    const second = await listDeliveries(caller, { task_id: TASK_ID, cursor: first.next_cursor! }, deliveries);
    expect(second).toEqual({ items: [expect.objectContaining({ id: records[0]!.delivery_id })], next_cursor: null });
    expect((await listDeliveries(caller, {}, deliveries)).items).toHaveLength(4);
    await expect(listDeliveries(caller, { task_id: 'x' }, deliveries)).rejects.toThrow(/task_id must be a task id/);
    await expect(listDeliveries(caller, { limit: '0' }, deliveries)).rejects.toThrow(/limit must be .* 1 to 100/);
    await expect(listDeliveries(caller, { since: '1' }, deliveries)).rejects.toThrow(/unknown query parameter "since"/);
  });
});

describe('redeliver', () => {
  function setup(results = [{ kind: 'response', statusCode: 204 } as const]) {
    const deliveries = new MemoryWebhookDeliveries();
    const sender = new ScriptedSender(results);
    const deps = {
      deliveries,
      tasks: new MemoryWebhookTasks(TASK),
      secrets: new MemoryWebhookSecrets({ [TASK.account_id]: ['whsec_new'] }),
      sender,
      signer: new CountingSigner(),
      now: () => NOW,
    };
    return { deliveries, sender, deps, original: logged(deliveries, 0) };
  }

  it('sends the event again with the same webhook-id, and logs it as a redelivery', async () => {
    const { deliveries, sender, deps, original } = setup();
    const view = await redeliver(caller, original.delivery_id, deps);
    expect(view).toMatchObject({ outcome: 'delivered', status_code: 204, redelivery: true, error: null });
    expect(sender.requests).toEqual([expect.objectContaining({ id: original.webhook_id, url: HOOK })]);
    expect(JSON.parse(sender.requests[0]!.body)).toMatchObject({ task_id: TASK_ID, status: 'failed' });
    expect(deliveries.records).toHaveLength(2);
  });

  it("refuses a bad id, another account's delivery and an unknown one", async () => {
    const { deps, original } = setup();
    await expect(redeliver(caller, 'nope', deps)).rejects.toThrow(InvalidRequestError);
    await expect(redeliver({ accountId: 'other' }, original.delivery_id, deps)).rejects.toThrow(NotFoundError);
    await expect(redeliver(caller, 'wd_000000000000000000000', deps)).rejects.toThrow(NotFoundError);
  });
});
