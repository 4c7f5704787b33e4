import type { WebhookAttemptRecord, WebhookSendResult } from '../webhook.js';

export interface WebhookRequest {
  url: string;
  /** `webhook-id`: the same for every try of one event. */
  id: string;
  /** `webhook-timestamp`: the time of this try. */
  timestamp: Date;
  /** The exact JSON text that is signed and sent. */
  body: string;
  /** `whsec_…` secrets to sign with: the current one first, then one still in its rotation overlap. */
  secrets: readonly string[];
}

export interface WebhookSender {
  /** One POST, no redirects, bounded in time. Never throws for what the receiver or the network does. */
  send(request: WebhookRequest): Promise<WebhookSendResult>;
}

export interface WebhookSecretStore {
  /** The account's signing secrets, current first (created on first use); undefined when there is no such account. */
  signingSecrets(accountId: string, now: Date): Promise<string[] | undefined>;
}

export interface WebhookAttemptLog {
  /** Records one try on the task (an atomic count). A try after the event was delivered records nothing. */
  record(taskId: string, attempt: WebhookAttemptRecord): Promise<void>;
}
