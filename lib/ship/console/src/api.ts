/**
 * The console API (`/api/v1/console/…`) with the Cognito access token. A 401 is answered once by refreshing the
 * tokens (REFRESH_TOKEN_AUTH) and retrying; a second 401, or a failed refresh, ends the session.
 * Answers are the service's envelope `{code, message, data}`; an error shows its `message`.
 */
import type { CognitoClient } from './cognito.js';
import type { SessionStore } from './session.js';
import type { ModelView } from './pricing.js';

export type { ModelView };

export interface Account {
  account_id: string;
  balance: number;
  currency: string;
  spent_this_month: number;
  tasks_this_month: number;
}

export interface TaskView {
  task_id: string;
  status: string;
  video_url: string | null;
  cost: number;
  created_at: string;
  finished_at: string | null;
  error_message: string | null;
  model: string;
  duration: number;
  resolution: string;
  ratio: string;
  generate_audio: boolean;
}

export interface Transaction {
  id?: string;
  entry_id?: string;
  type: string;
  amount: number;
  balance_after?: number;
  task_id: string | null;
  created_at: string;
}

export interface ApiKey {
  key_id: string;
  /** bc_a1b2…9f3c; the key id for keys made before hints were kept. */
  key_hint: string;
  name: string;
  /** deleted: revoked for good, kept for its spend and tasks. */
  status: 'active' | 'disabled' | 'deleted';
  quota: number | null;
  spent: number;
  rate_limit_per_second: number;
  rate_is_default: boolean;
  created_at: string;
  last_used_at: string | null;
  deleted_at: string | null;
}

export interface Page<T> {
  items: T[];
  next_cursor: string | null;
}

export interface WebhookSecret {
  secret: string;
  previous_valid_until: string | null;
}

export interface WebhookTestResult {
  delivered: boolean;
  status_code: number | null;
  error: string | null;
  webhook_id: string;
}

/** One POST of a webhook, as the delivery log shows it. */
export interface WebhookDelivery {
  id: string;
  webhook_id: string;
  event: string;
  task_id: string;
  url: string;
  attempted_at: string;
  status_code: number | null;
  latency_ms: number;
  error: string | null;
  response_excerpt: string | null;
  outcome: 'delivered' | 'retrying' | 'failed' | 'dead_lettered';
  redelivery: boolean;
}

/** An answer other than success: `message` is the envelope's (or the gateway's) words. */
export class ApiError extends Error {
  override readonly name = 'ApiError';
  constructor(
    message: string,
    readonly status: number,
    readonly code: number | null,
  ) {
    super(message);
  }
}

/** The session is over (refresh refused): the app goes back to sign-in. */
export class SessionExpiredError extends ApiError {
  constructor() {
    super('Your session has expired. Sign in again.', 401, null);
  }
}

type Fetch = typeof fetch;

/** The service's envelope; API Gateway's own 401 has only `message`. */
interface Envelope {
  code?: number;
  message?: string;
  data?: unknown;
}

export class ConsoleApi {
  private refreshing: Promise<boolean> | null = null;

  constructor(
    private readonly apiBase: string,
    private readonly session: SessionStore,
    private readonly cognito: CognitoClient,
    private readonly fetchImpl: Fetch = (...args) => fetch(...args),
  ) {}

  account = () => this.request<Account>('GET', '/account');
  transactions = (cursor?: string | null, limit = 20) =>
    this.request<Page<Transaction>>('GET', `/transactions${query({ limit, cursor })}`);
  tasks = (options: { cursor?: string | null; status?: string; keyId?: string; limit?: number } = {}) =>
    this.request<Page<TaskView>>(
      'GET',
      `/tasks${query({ limit: options.limit ?? 20, cursor: options.cursor, status: options.status, key_id: options.keyId })}`,
    );
  task = (id: string) => this.request<TaskView>('GET', `/tasks/${encodeURIComponent(id)}`);
  keys = () => this.request<{ items: ApiKey[] }>('GET', '/keys');
  createKey = (body: { name: string; quota?: number | null; rate_limit_per_second?: number }) =>
    this.request<ApiKey & { key: string }>('POST', '/keys', body);
  updateKey = (keyId: string, body: { status?: 'active' | 'disabled'; quota?: number | null; name?: string }) =>
    this.request<ApiKey>('PATCH', `/keys/${encodeURIComponent(keyId)}`, body);
  deleteKey = (keyId: string) => this.request<ApiKey>('DELETE', `/keys/${encodeURIComponent(keyId)}`);
  webhookSecret = () => this.request<WebhookSecret>('GET', '/webhook-secret');
  rotateWebhookSecret = () => this.request<WebhookSecret>('POST', '/webhook-secret/rotate');
  testWebhook = (url: string) => this.request<WebhookTestResult>('POST', '/webhook-test', { url });
  webhookDeliveries = (taskId?: string | null, cursor?: string | null) =>
    this.request<Page<WebhookDelivery>>('GET', `/webhook-deliveries${query({ task_id: taskId, cursor, limit: 50 })}`);
  redeliverWebhook = (id: string) =>
    this.request<WebhookDelivery>('POST', `/webhook-deliveries/${encodeURIComponent(id)}/redeliver`);
  redeem = (code: string) => this.request<RedeemResult>('POST', '/redeem', { code });
  models = () => this.request<ModelView[]>('GET', '/models');
  createTopup = (amount: number) => this.request<Topup>('POST', '/topups', { amount });
  topup = (id: string) => this.request<Topup>('GET', `/topups/${encodeURIComponent(id)}`);
  topups = (cursor?: string | null, limit = 10) =>
    this.request<Page<Topup>>('GET', `/topups${query({ limit, cursor })}`);

  async request<T>(method: string, path: string, body?: unknown): Promise<T> {
    let response = await this.send(method, path, body);
    if (response.status === 401) {
      if (!(await this.refreshOnce())) throw this.expire();
      response = await this.send(method, path, body);
      if (response.status === 401) throw this.expire();
    }
    return this.unwrap<T>(response);
  }

  private async send(method: string, path: string, body: unknown): Promise<Response> {
    const token = this.session.get()?.accessToken;
    if (!token) throw this.expire();
    const headers: Record<string, string> = { Authorization: `Bearer ${token}` };
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    try {
      return await this.fetchImpl(`${this.apiBase}/api/v1/console${path}`, {
        method,
        headers,
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
    } catch {
      throw new ApiError('The service could not be reached. Check your connection and try again.', 0, null);
    }
  }

  /** One refresh at a time: parallel 401s share it. */
  private refreshOnce(): Promise<boolean> {
    this.refreshing ??= (async () => {
      const current = this.session.get();
      if (!current) return false;
      try {
        this.session.updateTokens(await this.cognito.refresh(current.refreshToken));
        return true;
      } catch {
        return false;
      } finally {
        this.refreshing = null;
      }
    })();
    return this.refreshing;
  }

  private expire(): SessionExpiredError {
    const error = new SessionExpiredError();
    if (this.session.get()) this.session.clear(error.message);
    return error;
  }

  private async unwrap<T>(response: Response): Promise<T> {
    const text = await response.text();
    const json = parseJson<Envelope>(text);
    if (response.ok && json && (json.code === undefined || json.code === 0)) return json.data as T;
    const message = json?.message ?? `The service answered HTTP ${response.status}.`;
    throw new ApiError(message, response.status, json?.code ?? null);
  }
}

function query(params: Record<string, string | number | null | undefined>): string {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) {
    if (value !== undefined && value !== null && value !== '') search.set(name, String(value));
  }
  const text = search.toString();
  return text ? `?${text}` : '';
}

function parseJson<T>(text: string): T | null {
  try {
    return text ? (JSON.parse(text) as T) : null;
  } catch {
    return null;
  }
}

/** POST /console/redeem; `already_redeemed_at` is set when this account had redeemed the code before. */
export interface RedeemResult {
  amount: number;
  balance: number;
  already_redeemed_at: string | null;
}

/** A top-up order (POST/GET /console/topups): pending with its QR code, then paid once, or closed unpaid. */
export interface Topup {
  topup_id: string;
  status: 'pending' | 'paid' | 'closed';
  amount: number;
  qr_code: string | null;
  created_at: string;
  expires_at: string;
  paid_at: string | null;
  trade_no: string | null;
}
