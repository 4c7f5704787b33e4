/** The webhook delivery log (docs/webhooks.md, "Delivery log"): every POST, newest first, each one sent again on request. */
import { useState } from 'preact/hooks';
import type { WebhookDelivery } from '../api.js';
import { useServices } from '../context.js';
import { dateTime } from '../format.js';
import { ActionButton } from '../action-button.js';
import { Card, Empty, ErrorNote, Loading, useAction, useLoad } from '../ui.js';

export function DeliveryLog({ taskId }: { taskId: string | null }) {
  const { api } = useServices();
  const log = useLoad(() => api.webhookDeliveries(taskId), [taskId]);
  return (
    <Card title={taskId ? `Deliveries of task ${taskId}` : 'Delivery log'}>
      <p class="muted">
        Every POST of the last 30 days, newest first. Redeliver sends the event again with the same webhook-id.
      </p>
      <ErrorNote error={log.error} testId="deliveries-error" />
      {log.loading && !log.data && <Loading />}
      {log.data && log.data.items.length === 0 && (
        <Empty testId="deliveries-empty">
          <p>No webhook was sent{taskId ? ' for this task' : ''} yet: submit a task with a webhook_url.</p>
        </Empty>
      )}
      {log.data && log.data.items.length > 0 && (
        <ul class="tasks" data-testid="delivery-list">
          {log.data.items.map((delivery) => (
            <DeliveryRow key={delivery.id} delivery={delivery} />
          ))}
        </ul>
      )}
    </Card>
  );
}

function DeliveryRow({ delivery }: { delivery: WebhookDelivery }) {
  const { api } = useServices();
  const [again, setAgain] = useState<WebhookDelivery | null>(null);
  const redeliver = useAction(async () => setAgain(await api.redeliverWebhook(delivery.id)));
  return (
    <li class="task" data-testid="delivery-row" data-outcome={delivery.outcome}>
      <div class="task-head">
        <strong>{delivery.event}</strong>
        <span class="badge">{delivery.status_code ?? 'no answer'}</span>
        <span class="muted">{delivery.outcome.replace('_', ' ')}</span>
      </div>
      <div class="key-meta muted">
        <span>{dateTime(delivery.attempted_at)}</span>
        <span>{delivery.latency_ms} ms</span>
        <a href={`#/tasks?task=${encodeURIComponent(delivery.task_id)}`}>task {delivery.task_id}</a>
        <span class="mono">{delivery.url}</span>
      </div>
      {delivery.error && <p class="note note-error">{delivery.error}</p>}
      {delivery.response_excerpt && <pre class="code">{delivery.response_excerpt}</pre>}
      <ActionButton
        action={redeliver}
        class="button"
        label="Redeliver"
        busyLabel="Sending…"
        testId="delivery-redeliver"
      />
      {again && (
        <p class="muted" role="status" data-testid="delivery-redelivered">
          Sent again: {again.status_code === null ? again.error : `HTTP ${again.status_code}`}.
        </p>
      )}
      <ErrorNote error={redeliver.error} testId="delivery-error" />
    </li>
  );
}
