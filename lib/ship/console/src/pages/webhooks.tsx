import { useState } from 'preact/hooks';
import type { WebhookSecret, WebhookTestResult } from '../api.js';
import { useServices } from '../context.js';
import { dateTime } from '../format.js';
import { ActionButton } from '../action-button.js';
import { Field, Form, SubmitButton } from '../form.js';
import { Card, CopyButton, ErrorNote, useAction } from '../ui.js';
import { DeliveryLog } from './delivery-log.js';

export function Webhooks() {
  return (
    <>
      <h1>Webhooks</h1>
      <p class="muted">
        When a task ends we POST it to the <code>webhook_url</code> you gave, signed the{' '}
        <a href="https://www.standardwebhooks.com/" target="_blank" rel="noreferrer">
          Standard Webhooks
        </a>{' '}
        way (<code>webhook-id</code>, <code>webhook-timestamp</code>, <code>webhook-signature</code>). Verify each
        delivery with this secret.
      </p>
      <SecretCard />
      <TestCard />
      {/* `#/webhooks?task=<id>`, from the Tasks page: that task's deliveries. */}
      <DeliveryLog taskId={new URLSearchParams(location.hash.split('?')[1] ?? '').get('task')} />
    </>
  );
}

function SecretCard() {
  const { api } = useServices();
  const [secret, setSecret] = useState<WebhookSecret | null>(null);
  const [confirming, setConfirming] = useState(false);
  const [rotated, setRotated] = useState(false);
  const reveal = useAction(async () => setSecret(await api.webhookSecret()));
  const rotate = useAction(async () => {
    setSecret(await api.rotateWebhookSecret());
    setConfirming(false);
    setRotated(true);
  });

  return (
    <Card title="Signing secret">
      <div class="copy-row">
        <input
          class="mono"
          type="text"
          readOnly
          aria-label="Webhook signing secret"
          value={secret ? secret.secret : 'whsec_••••••••••••••••••••••••'}
          data-testid="webhook-secret"
          data-revealed={secret ? 'true' : 'false'}
        />
        {secret ? (
          <>
            <CopyButton text={secret.secret} testId="webhook-secret-copy" />
            <button class="button" type="button" onClick={() => setSecret(null)} data-testid="webhook-secret-hide">
              Hide
            </button>
          </>
        ) : (
          <ActionButton
            action={reveal}
            class="button primary"
            label="Reveal"
            busyLabel="Loading…"
            testId="webhook-secret-reveal"
          />
        )}
      </div>
      {secret?.previous_valid_until && (
        <p class="note note-info" data-testid="webhook-previous-valid">
          The previous secret still verifies deliveries until {dateTime(secret.previous_valid_until)}: deliveries carry
          both signatures until then.
        </p>
      )}
      {rotated && (
        <p class="note note-success" role="status" data-testid="webhook-rotated">
          The secret was rotated. Update your receiver with the new one.
        </p>
      )}
      <ErrorNote error={reveal.error ?? rotate.error} testId="webhook-secret-error" />
      {confirming ? (
        <div
          class="confirm"
          role="alertdialog"
          aria-label="Rotate the webhook secret?"
          data-testid="webhook-rotate-dialog"
        >
          <p>
            Rotate the secret? New deliveries are signed with a new secret; the current one keeps verifying for a while
            so you can update your receiver.
          </p>
          <div class="row">
            <ActionButton
              action={rotate}
              class="button danger"
              label="Yes, rotate"
              busyLabel="Rotating…"
              testId="webhook-rotate-confirm"
            />
            <button
              class="button"
              type="button"
              onClick={() => setConfirming(false)}
              data-testid="webhook-rotate-cancel"
            >
              Cancel
            </button>
          </div>
        </div>
      ) : (
        <button class="button" type="button" onClick={() => setConfirming(true)} data-testid="webhook-rotate">
          Rotate secret…
        </button>
      )}
    </Card>
  );
}

function TestCard() {
  const { api } = useServices();
  const [url, setUrl] = useState('');
  const [result, setResult] = useState<WebhookTestResult | null>(null);
  const send = useAction(async () => {
    setResult(await api.testWebhook(url.trim()));
  });

  return (
    <Card title="Send a test event">
      <p class="muted">We send a signed test event to the URL, as a real delivery would be sent.</p>
      <Form
        class="form inline"
        testId="webhook-test-form"
        onSubmit={() => {
          setResult(null);
          void send.run();
        }}
      >
        <Field
          label="Receiver URL"
          type="url"
          name="url"
          required
          placeholder="https://example.com/webhooks"
          value={url}
          onValue={setUrl}
          testId="webhook-test-url"
        />
        <SubmitButton busy={send.busy} label="Send test event" busyLabel="Sending…" testId="webhook-test-submit" />
      </Form>
      <ErrorNote error={send.error} testId="webhook-test-error" />
      {result && (
        <div
          class={`note ${result.delivered ? 'note-success' : 'note-error'}`}
          role="status"
          data-testid="webhook-test-result"
          data-delivered={result.delivered ? 'true' : 'false'}
        >
          <p>
            <strong data-testid="webhook-test-delivered">{result.delivered ? 'Delivered' : 'Not delivered'}</strong>
            {result.status_code !== null && (
              <>
                {' '}
                · your receiver answered <span data-testid="webhook-test-status">HTTP {result.status_code}</span>
              </>
            )}
          </p>
          {result.error && <p data-testid="webhook-test-failure">{result.error}</p>}
          <p class="small mono">webhook-id: {result.webhook_id}</p>
        </div>
      )}
    </Card>
  );
}
