/** A task as stored and as shown (docs/api-contract.md, "Task object"). */
import type { ImageMode } from './provider-contract.js';
import type { Ratio, Resolution } from './generation-options.js';
import type { RequestForm } from './generation-request.js';
import type { ResolvedGeneration } from './resolve-generation.js';
import type { CostParts } from './pricing.js';
import { unitsToYuan } from './money.js';
import type { TaskStatus } from './task-status.js';

export type WebhookState = 'pending' | 'retrying' | 'delivered' | 'failed';

export interface TaskRecord {
  task_id: string;
  account_id: string;
  /** The key that paid: its spend is refunded with the balance. */
  key_hash: string;
  /** Whether the paying key had a quota at submit time (its remaining quota is refunded too). */
  key_quota_charged: boolean;
  form: RequestForm;
  status: TaskStatus;
  cost_units: number;
  generation: Omit<ResolvedGeneration, 'costUnits'>;
  upstream_provider: string;
  upstream_model: string;
  upstream_job_id?: string;
  /**
   * StartUpstream's claim before it asks the upstream for a job (docs/task-lifecycle.md, "Claims before upstream creates"):
   * while it is live (until `upstream_claim_until`) and no job id is recorded, nothing refunds the task; after
   * it, whoever meets it looks upstream for the job it may have made before anything else.
   */
  upstream_claim_id?: string;
  upstream_claim_at?: string;
  upstream_claim_until?: string;
  /** The seed the claim's job is made with (the customer's, or one picked at the claim): it tells that job apart. */
  upstream_seed?: number;
  /** When the upstream expires the job unfinished (its execution_expires_after from our create). */
  upstream_expires_at?: string;
  /** The API key the job is made with (docs/upstream-capacity.md); absent on older tasks: `default`. */
  upstream_account?: string;
  /** `<provider>#<account>` (the master account) from the waiting room until the job is final. */
  upstream_slot?: string;
  /** `queued`: the task holds one of the account's queued slots; `running`: given back, the job runs. Absent: queued. */
  upstream_slot_phase?: 'queued' | 'running';
  /** The secret in the upstream's callback URL for this task (a callback only makes us re-read the job). */
  callback_token?: string;
  /** The task token of the execution's wait for the job's end, to wake it (docs/task-lifecycle.md, "Completion"). */
  wake_token?: string;
  /** The execution driving the task: the task id, or a new name after the reconciler restarted it. */
  execution_name?: string;
  /** How often the reconciler restarted the task's execution. */
  restarts?: number;
  created_at: string;
  updated_at: string;
  /** ISO time after which a still-running generation fails as timed out. */
  deadline_at: string;
  /** The implicit AI-content label its delivered video carries (docs/compliance.md, "The implicit label"). */
  aigc?: AigcView;
  finished_at?: string;
  error_message?: string;
  video_key?: string;
  video_url?: string;
  video_url_expires_at?: string;
  /** Set when the caller deleted the video (DELETE /api/v1/videos/{id}); the key and URL are gone then. */
  video_deleted_at?: string;
  refunded_at?: string;
  /** Completion webhook delivery (functions/core/webhook.ts): set by its consumer, one write per attempt. */
  webhook_state?: Exclude<WebhookState, 'pending'>;
  webhook_attempts?: number;
  webhook_last_status_code?: number | null;
  webhook_last_error?: string | null;
  webhook_last_attempt_at?: string;
  webhook_delivered_at?: string;
  /** The try a queue message has claimed, and until when: other messages of the event hold off meanwhile. */
  webhook_claim_attempt?: number;
  webhook_claimed_until?: string;
  /** Set while the webhook is owed (from submit until delivered or failed): the pending-webhooks index's keys. */
  webhook_pending?: string;
  webhook_due_at?: string;
}

/**
 * What a Task view is made of: the task list reads it from the account index, which projects exactly these
 * (TASKS_BY_ACCOUNT_INDEX in functions/adapters/runtime/resources.ts).
 */
export type TaskViewSource = Pick<
  TaskRecord,
  | 'task_id'
  | 'status'
  | 'cost_units'
  | 'generation'
  | 'created_at'
  | 'finished_at'
  | 'error_message'
  | 'video_url'
  | 'video_url_expires_at'
  | 'webhook_state'
  | 'webhook_attempts'
  | 'webhook_last_status_code'
  | 'webhook_last_error'
  | 'webhook_last_attempt_at'
  | 'webhook_delivered_at'
> & { video_deleted_at?: string; aigc?: AigcView };

/** The spec's Task object (plus a few additive fields), as the status endpoint returns it. */
export interface TaskView {
  task_id: string;
  status: TaskStatus;
  video_url: string | null;
  cost: number;
  created_at: string;
  finished_at: string | null;
  error_message: string | null;
  /** What was generated (docs/api-contract.md, "Task object"): the model's name and the options the task was priced and made with. */
  model: string;
  /** The prompt as submitted. */
  prompt: string;
  /** The client's own pairs, as submitted; `{}` without any. */
  metadata: Record<string, string>;
  duration: number;
  resolution: Resolution;
  ratio: Ratio;
  generate_audio: boolean;
  image_mode: ImageMode | null;
  result_url: string | null;
  video_url_expires_at: string | null;
  /** When the storage policy removed the video (then video_url is null); null otherwise. */
  video_deleted_at: string | null;
  /** Completion webhook delivery; null when the task has no webhook_url. */
  webhook: WebhookView | null;
  /** The AI-content label the delivered video carries; null until success, or when the file could not be labelled. */
  aigc: AigcView | null;
  /** What the cost is made of (docs/money-and-ledger.md, "Pricing"); null for tasks made before it was kept. */
  cost_breakdown: CostBreakdown | null;
  /**
   * While the task waits for upstream capacity (docs/upstream-capacity.md): 1 when it starts next. Shown by the
   * status query; null otherwise.
   */
  queue_position: number | null;
}

/** The cost's parts in yuan; they add up to `cost` exactly (functions/core/pricing.ts). */
export interface CostBreakdown {
  base: number;
  resolution: number;
  audio: number;
  surcharges: number;
}

export function costBreakdown(parts: CostParts): CostBreakdown {
  return {
    base: unitsToYuan(parts.baseUnits),
    resolution: unitsToYuan(parts.resolutionUnits),
    audio: unitsToYuan(parts.audioUnits),
    surcharges: unitsToYuan(parts.surchargeUnits),
  };
}

/** The `aigc` object of the task view: the label the delivered video carries, as written into its file. */
export interface AigcView {
  content_producer: string;
  produce_id: string;
  content_propagator: string;
  propagate_id: string;
}

/** The `webhook` object of the task view (beyond spec, additive). */
export interface WebhookView {
  /** pending: not sent yet; retrying: failed so far, more tries to come; delivered; failed: given up. */
  state: WebhookState | 'not_sent';
  attempts: number;
  last_status_code: number | null;
  last_error: string | null;
  last_attempt_at: string | null;
  delivered_at: string | null;
}

/** Null when the task has no webhook_url; `not_sent` for a cancelled (refunded) task, which sends none. */
export function webhookView(task: TaskViewSource): WebhookView | null {
  if (!task.generation.webhookUrl) return null;
  const state = task.webhook_state ?? (task.status === 'refunded' ? 'not_sent' : 'pending');
  return {
    state,
    attempts: task.webhook_attempts ?? 0,
    last_status_code: task.webhook_last_status_code ?? null,
    last_error: task.webhook_last_error ?? null,
    last_attempt_at: task.webhook_last_attempt_at ?? null,
    delivered_at: task.webhook_delivered_at ?? null,
  };
}

export function toTaskView(task: TaskViewSource): TaskView {
  const videoUrl = task.status === 'success' ? (task.video_url ?? null) : null;
  return {
    task_id: task.task_id,
    status: task.status,
    video_url: videoUrl,
    cost: unitsToYuan(task.cost_units),
    created_at: task.created_at,
    finished_at: task.status === 'transferring' ? null : (task.finished_at ?? null),
    // docs/api-contract.md, "Task object": null unless failed (a cancelled task is `refunded`, its reason is not an error).
    error_message: task.status === 'failed' ? (task.error_message ?? null) : null,
    model: task.generation.modelName,
    prompt: task.generation.prompt,
    metadata: task.generation.metadata ?? {},
    duration: task.generation.durationSeconds,
    resolution: task.generation.resolution,
    ratio: task.generation.ratio,
    generate_audio: task.generation.generateAudio,
    image_mode: task.generation.imageMode ?? null,
    result_url: videoUrl,
    video_url_expires_at: videoUrl ? (task.video_url_expires_at ?? null) : null,
    video_deleted_at: task.status === 'success' ? (task.video_deleted_at ?? null) : null,
    webhook: webhookView(task),
    aigc: task.status === 'success' ? (task.aigc ?? null) : null,
    cost_breakdown: task.generation.costParts ? costBreakdown(task.generation.costParts) : null,
    queue_position: null,
  };
}

export const TRANSFERRING_MESSAGE =
  'the video is being transferred to permanent storage: query again in 5 to 10 seconds';
