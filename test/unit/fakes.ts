/** In-memory fakes of the core's ports, and the caller and key they serve, for unit tests of the use cases. */
import type { AigcLabel } from '../../functions/core/mp4-label/index.js';
import type {
  AccountRecord,
  AccountRepository,
  ApiKeyRecord,
  ApiKeyRepository,
} from '../../functions/core/ports/accounts.js';
import { IdempotencyKeyTakenError, isLive } from '../../functions/core/idempotency.js';
import type { IdempotencyRecord } from '../../functions/core/idempotency.js';
import type { IdempotencyStore } from '../../functions/core/ports/idempotency.js';
import type { ModelCatalog } from '../../functions/core/ports/model-catalog.js';
import type { RateLimiter, RateWindow } from '../../functions/core/ports/rate-limiter.js';
import { KeyChangedError } from '../../functions/core/ports/task-repository.js';
import type { Charge, TaskRepository, UpstreamClaim } from '../../functions/core/ports/task-repository.js';
import type {
  CancelOutcome,
  JobLookup,
  ProviderJobRequest,
  ProviderJobStatus,
  VideoProvider,
} from '../../functions/core/ports/video-provider.js';
import type {
  SignedUrl,
  TransferResult,
  VideoTransfer,
  VideoUrlSigner,
} from '../../functions/core/ports/video-storage.js';
import type { TaskWorkflow } from '../../functions/core/ports/workflow-starter.js';
import type { TaskWaker } from '../../functions/core/ports/task-waker.js';
import { accountIdOf } from '../../functions/core/ports/upstream-capacity.js';
import type {
  AccountPenalty,
  AssignOptions,
  UpstreamAccount,
  UpstreamCapacity,
  WaitingEntry,
} from '../../functions/core/ports/upstream-capacity.js';
import type { TaskRecord } from '../../functions/core/task.js';
import { isFinal, statesBefore } from '../../functions/core/task-status.js';
import type { TaskStatus } from '../../functions/core/task-status.js';
import type { Caller } from '../../functions/core/use-cases/authenticate.js';
import type { VideoModel } from '../../functions/core/video-model.js';
import { raisedLimit } from '../../functions/core/upstream-account-rules.js';
import { ACCOUNT } from '../support/task-records.js';

export const OTHER_ACCOUNT = 'acc-2';
export const NOW = new Date('2026-11-21T10:00:00.000Z');
export const HOUR = 3600 * 1000;
/** The caller that owns taskRecord()'s task (test/support/task-records.ts). */
export const CALLER: Caller = { accountId: ACCOUNT, keyHash: 'key-hash-1', keyHasQuota: false };

/** An active key of ACCOUNT without a quota: CALLER's key, unless `fields` say otherwise. */
export function apiKeyRecord(fields: Partial<ApiKeyRecord> = {}): ApiKeyRecord {
  return {
    key_hash: CALLER.keyHash,
    key_id: 'id-1',
    account_id: ACCOUNT,
    status: 'active',
    spent_units: 0,
    created_at: '2026-11-01T00:00:00.000Z',
    ...fields,
  };
}

/** Idempotency records, as the table holds them; `put` is the charge transaction's conditional write. */
export class InMemoryIdempotency implements IdempotencyStore {
  readonly records = new Map<string, IdempotencyRecord>();

  async find(id: string, now: Date): Promise<IdempotencyRecord | undefined> {
    const record = this.records.get(id);
    return record && isLive(record, now) ? structuredClone(record) : undefined;
  }

  put(record: IdempotencyRecord): void {
    const held = this.records.get(record.id);
    if (held && isLive(held, new Date(record.created_at))) throw new IdempotencyKeyTakenError();
    this.records.set(record.id, structuredClone(record));
  }
}

export class InMemoryTasks implements TaskRepository {
  readonly tasks = new Map<string, TaskRecord>();
  /** Written with each charge that carries a record, as in the charge's transaction. */
  readonly idempotency = new InMemoryIdempotency();
  readonly charges: Charge[] = [];
  readonly refunds: { taskId: string; to: 'failed' | 'refunded'; errorMessage: string }[] = [];
  readonly savedUrls: { taskId: string; url: string; expiresAt: string }[] = [];
  /** Tasks marked alive (touch), in order. */
  readonly touched: string[] = [];
  recordUpstreamJobCalls = 0;
  /** Thrown by createCharged when set (e.g. InsufficientBalanceError). */
  chargeError: Error | undefined;
  /** Whether the stored key has a quota, when a test says so: a charge that disagrees is refused. */
  storedKeyHasQuota: boolean | undefined;

  constructor(...tasks: TaskRecord[]) {
    for (const task of tasks) this.tasks.set(task.task_id, structuredClone(task));
  }

  async get(taskId: string): Promise<TaskRecord | undefined> {
    const task = this.tasks.get(taskId);
    return task && structuredClone(task);
  }

  async findStale(updatedBefore: string, limit: number): Promise<TaskRecord[]> {
    return [...this.tasks.values()]
      .filter((task) => !isFinal(task.status) && task.updated_at < updatedBefore)
      .sort((a, b) => a.updated_at.localeCompare(b.updated_at))
      .slice(0, limit)
      .map((task) => structuredClone(task));
  }

  async touch(taskId: string, now: string): Promise<boolean> {
    const task = this.tasks.get(taskId);
    if (!task || isFinal(task.status)) return false;
    task.updated_at = now;
    this.touched.push(taskId);
    return true;
  }

  async registerWake(taskId: string, token: string, now: string): Promise<boolean> {
    const task = this.tasks.get(taskId);
    if (!task || isFinal(task.status)) return false;
    Object.assign(task, { wake_token: token, updated_at: now });
    return true;
  }

  async recordExecution(taskId: string, executionName: string, now: string): Promise<boolean> {
    const task = this.tasks.get(taskId);
    if (!task || !['pending', 'running', 'transferring'].includes(task.status)) return false;
    task.execution_name = executionName;
    task.restarts = (task.restarts ?? 0) + 1;
    task.updated_at = now;
    return true;
  }

  async createCharged(task: TaskRecord, charge: Charge): Promise<void> {
    if (this.chargeError) throw this.chargeError;
    // As the key's condition in the table: the charge's quota shape must be the stored key's.
    if (this.storedKeyHasQuota !== undefined && this.storedKeyHasQuota !== charge.keyHasQuota) {
      throw new KeyChangedError();
    }
    if (charge.idempotency) this.idempotency.put(charge.idempotency);
    this.charges.push(charge);
    this.tasks.set(task.task_id, structuredClone(task));
  }

  async recordUpstreamJob(taskId: string, jobId: string, now: string, expiresAt?: string): Promise<TaskRecord> {
    this.recordUpstreamJobCalls += 1;
    const task = this.require(taskId);
    // As the table's condition: no job yet, and the task still pending or running.
    if (task.upstream_job_id === undefined && (task.status === 'pending' || task.status === 'running')) {
      task.upstream_job_id = jobId;
      if (expiresAt) task.upstream_expires_at = expiresAt;
      task.updated_at = now;
    }
    return structuredClone(task);
  }

  async claimUpstream(taskId: string, claim: UpstreamClaim, previous?: string): Promise<boolean> {
    const task = this.require(taskId);
    // As the table's condition: in flight before any job, and no claim (or the expired one the caller settled).
    const free = previous
      ? task.upstream_claim_id === previous && (task.upstream_claim_until ?? '') <= claim.at
      : task.upstream_claim_id === undefined;
    if (!['pending', 'running'].includes(task.status) || task.upstream_job_id !== undefined || !free) return false;
    Object.assign(task, {
      upstream_claim_id: claim.id,
      upstream_claim_at: claim.at,
      upstream_claim_until: claim.until,
      upstream_seed: claim.seed,
    });
    return true;
  }

  async releaseUpstreamClaim(taskId: string, claimId: string): Promise<void> {
    const task = this.require(taskId);
    if (task.upstream_claim_id !== claimId || task.upstream_job_id !== undefined) return;
    delete task.upstream_claim_id;
    delete task.upstream_claim_at;
    delete task.upstream_claim_until;
    delete task.upstream_seed;
  }

  async moveTo(taskId: string, to: TaskStatus, fields: Partial<TaskRecord>, now: string): Promise<boolean> {
    const task = this.require(taskId);
    if (!statesBefore(to).includes(task.status)) return false;
    Object.assign(task, fields, { status: to, updated_at: now });
    return true;
  }

  async refund(
    task: TaskRecord,
    to: 'failed' | 'refunded',
    errorMessage: string,
    now: string,
    options: { withoutJob?: boolean; expiredClaim?: string } = {},
  ): Promise<boolean> {
    const stored = this.require(task.task_id);
    if (isFinal(stored.status) || (options.withoutJob && stored.upstream_job_id)) return false;
    // As the table's condition: never while a claim without a job may still make one.
    const claimSettled =
      stored.upstream_claim_id === undefined ||
      stored.upstream_job_id !== undefined ||
      (stored.upstream_claim_id === options.expiredClaim && (stored.upstream_claim_until ?? '') <= now);
    if (!claimSettled) return false;
    Object.assign(stored, { status: to, error_message: errorMessage, finished_at: now, refunded_at: now });
    this.refunds.push({ taskId: task.task_id, to, errorMessage });
    return true;
  }

  async saveVideoUrl(taskId: string, url: string, expiresAt: string): Promise<void> {
    Object.assign(this.require(taskId), { video_url: url, video_url_expires_at: expiresAt });
    this.savedUrls.push({ taskId, url, expiresAt });
  }

  private require(taskId: string): TaskRecord {
    const task = this.tasks.get(taskId);
    if (!task) throw new Error(`fake: no task ${taskId}`);
    return task;
  }
}

export class FakeProvider implements VideoProvider {
  /** Ark's bounds (docs/providers/ark.md, "Create body"). */
  readonly jobExpirySeconds = { min: 3600, max: 259_200 };
  readonly created: ProviderJobRequest[] = [];
  /** Every job made, with when (by `clock`): what findJobs looks through. */
  readonly jobs: { jobId: string; request: ProviderJobRequest; createdAt: Date }[] = [];
  clock: () => Date = () => NOW;
  readonly lookups: JobLookup[] = [];
  findError: Error | undefined;
  readonly polled: string[] = [];
  readonly cancelled: string[] = [];
  status: ProviderJobStatus = { state: 'running' };
  createError: Error | undefined;
  getError: Error | undefined;
  cancelError: Error | undefined;
  private nextJob = 1;

  async createJob(request: ProviderJobRequest): Promise<{ jobId: string }> {
    if (this.createError) throw this.createError;
    this.created.push(structuredClone(request));
    const jobId = `job-${this.nextJob++}`;
    this.jobs.push({ jobId, request: structuredClone(request), createdAt: this.clock() });
    return { jobId };
  }

  /** As Ark's list then get: the account's jobs of the model in the window, with the request's seed. */
  async findJobs(lookup: JobLookup): Promise<string[]> {
    this.lookups.push(structuredClone(lookup));
    if (this.findError) throw this.findError;
    const { request } = lookup;
    return this.jobs
      .filter(
        (job) =>
          job.request.account === request.account &&
          job.request.upstreamModel === request.upstreamModel &&
          job.request.seed === request.seed &&
          job.createdAt.toISOString() >= lookup.createdFrom &&
          job.createdAt.toISOString() <= lookup.createdTo,
      )
      .map((job) => job.jobId);
  }

  async getJob(jobId: string): Promise<ProviderJobStatus> {
    this.polled.push(jobId);
    if (this.getError) throw this.getError;
    return this.status;
  }

  /** What each cancel answers (the port's outcome), unless `cancelError` is set. */
  cancelOutcome: CancelOutcome = { outcome: 'cancelled' };

  async cancelJob(jobId: string): Promise<CancelOutcome> {
    if (this.cancelError) throw this.cancelError;
    this.cancelled.push(jobId);
    return this.cancelOutcome;
  }
}

/** Signs for 24 h; the URL names the key and the signing time so a re-sign is visible. */
export class FakeSigner implements VideoUrlSigner {
  readonly calls: { key: string; now: Date }[] = [];

  async sign(key: string, now: Date): Promise<SignedUrl> {
    this.calls.push({ key, now });
    return {
      url: `https://videos.example.com/${key}?signed=${now.getTime()}`,
      expiresAt: new Date(now.getTime() + 24 * 3600 * 1000).toISOString(),
    };
  }
}

export class FakeTransfer implements VideoTransfer {
  readonly copies: { sourceUrl: string; key: string; label?: AigcLabel }[] = [];

  /** Writes the label it is given, as the real transfer does into a file it can label. */
  async copy(sourceUrl: string, key: string, label?: AigcLabel): Promise<TransferResult> {
    this.copies.push({ sourceUrl, key, ...(label && { label }) });
    return { bytes: 1_234_567, contentType: 'video/mp4', ...(label && { label }) };
  }
}

export class InMemoryKeys implements ApiKeyRepository {
  readonly lookups: string[] = [];
  constructor(private readonly records: ApiKeyRecord[]) {}

  async findByHash(keyHash: string): Promise<ApiKeyRecord | undefined> {
    this.lookups.push(keyHash);
    return this.records.find((record) => record.key_hash === keyHash);
  }
}

/** Counts each subject's requests in one window that never ends. */
export class FakeLimiter implements RateLimiter {
  readonly calls: string[] = [];
  readonly counts = new Map<string, number>();
  retryAfterSeconds = 1;

  async hit(subject: string): Promise<RateWindow> {
    this.calls.push(subject);
    const count = (this.counts.get(subject) ?? 0) + 1;
    this.counts.set(subject, count);
    return { count, retryAfterSeconds: this.retryAfterSeconds };
  }
}

export class InMemoryAccounts implements AccountRepository {
  constructor(private readonly records: AccountRecord[]) {}

  async get(accountId: string): Promise<AccountRecord | undefined> {
    return this.records.find((record) => record.account_id === accountId);
  }
}

export class InMemoryCatalog implements ModelCatalog {
  readonly calls: string[] = [];
  constructor(private readonly models: VideoModel[]) {}

  async list(): Promise<VideoModel[]> {
    this.calls.push('list');
    return [...this.models];
  }

  async findByNameOrId(value: string): Promise<VideoModel | undefined> {
    this.calls.push(`findByNameOrId:${value}`);
    return this.models.find((model) => model.record.name === value || model.record.id === value);
  }

  async findById(id: string): Promise<VideoModel | undefined> {
    this.calls.push(`findById:${id}`);
    return this.models.find((model) => model.record.id === id);
  }
}

export class FakeWorkflow implements TaskWorkflow {
  readonly started: string[] = [];
  readonly startedNames: string[] = [];
  readonly stopped: { executionName: string; cause: string }[] = [];
  /** What `status` answers per execution name (default: missing). */
  readonly states = new Map<string, 'running' | 'ended' | 'missing'>();
  startError: Error | undefined;
  stopError: Error | undefined;

  async start(taskId: string, executionName = taskId): Promise<void> {
    if (this.startError) throw this.startError;
    this.started.push(taskId);
    this.startedNames.push(executionName);
    this.states.set(executionName, 'running');
  }

  async status(executionName: string): Promise<'running' | 'ended' | 'missing'> {
    return this.states.get(executionName) ?? 'missing';
  }

  async stop(executionName: string, cause: string): Promise<void> {
    if (this.stopError) throw this.stopError;
    this.stopped.push({ executionName, cause });
  }
}

/**
 * Upstream capacity as the DynamoDB adapter keeps it (one account per provider by default), over the tasks of
 * an InMemoryTasks: slots taken and given back with the task's own record, as the adapter's transactions do.
 */
export class InMemoryCapacity implements UpstreamCapacity {
  readonly accountsById = new Map<string, UpstreamAccount>();
  readonly queue = new Map<string, WaitingEntry>();

  constructor(
    private readonly tasks: InMemoryTasks,
    accounts: Partial<UpstreamAccount>[] = [{}],
  ) {
    for (const account of accounts) {
      const full: UpstreamAccount = {
        provider: 'ark',
        name: 'default',
        capacity: 120,
        in_use: 0,
        enabled: true,
        updated_at: '2026-01-01T00:00:00.000Z',
        ...account,
      };
      this.accountsById.set(accountIdOf(full.provider, full.name), full);
    }
  }

  async accounts(provider: string) {
    return [...this.accountsById.values()].filter((a) => a.provider === provider).map((a) => ({ ...a }));
  }

  async enqueue(entry: WaitingEntry) {
    this.queue.set(`${entry.provider}|${entry.position}`, { ...entry });
  }

  async oldest(provider: string, limit: number) {
    return [...this.queue.values()]
      .filter((e) => e.provider === provider)
      .sort((a, b) => a.position.localeCompare(b.position))
      .slice(0, limit)
      .map((e) => ({ ...e }));
  }

  async countBefore(provider: string, position: string) {
    return [...this.queue.values()].filter((e) => e.provider === provider && e.position < position).length;
  }

  async leave(provider: string, position: string, token?: string) {
    const key = `${provider}|${position}`;
    if (!token || this.queue.get(key)?.token === token) this.queue.delete(key);
  }

  async assign(
    entry: WaitingEntry,
    account: UpstreamAccount,
    callbackToken: string,
    now: string,
    options: AssignOptions,
  ) {
    const key = `${entry.provider}|${entry.position}`;
    if (this.queue.get(key)?.token !== entry.token) return 'entry-changed' as const;
    const task = this.tasks.tasks.get(entry.task_id);
    if (!task || task.status !== 'pending' || task.upstream_slot || task.upstream_job_id)
      return 'task-not-waiting' as const;
    const stored = this.accountsById.get(accountIdOf(account.provider, account.name));
    if (!stored || !admits(stored, now, options)) return 'account-full' as const;
    stored.in_use += 1;
    stored.inflight = (stored.inflight ?? 0) + 1;
    if (options.probe) stored.probe_until = options.probe.until;
    Object.assign(task, {
      upstream_slot: accountIdOf(account.provider, account.name),
      upstream_slot_phase: 'queued',
      upstream_account: options.key,
      callback_token: callbackToken,
      updated_at: now,
    });
    this.queue.delete(key);
    return 'assigned' as const;
  }

  async release(taskId: string, accountId: string, now: string, penalty?: AccountPenalty) {
    const task = this.tasks.tasks.get(taskId);
    const account = this.accountsById.get(accountId);
    if (!task || task.upstream_slot !== accountId || !account) return false;
    const phase = task.upstream_slot_phase;
    delete task.upstream_slot;
    delete task.upstream_slot_phase;
    if (phase !== 'running') account.in_use -= 1;
    if (phase !== undefined) account.inflight = (account.inflight ?? 0) - 1;
    account.updated_at = now;
    if (penalty && 'coolUntil' in penalty) {
      account.cool_until = penalty.coolUntil;
      account.cool_streak = (account.cool_streak ?? 0) + 1;
      delete account.probe_until;
      if (penalty.inflightLimit !== undefined)
        Object.assign(account, { inflight_limit: penalty.inflightLimit, inflight_accepted: 0 });
    } else if (penalty) Object.assign(account, { enabled: false, disabled_reason: penalty.disable });
    return true;
  }

  async started(taskId: string, accountId: string, now: string) {
    const task = this.tasks.tasks.get(taskId);
    const account = this.accountsById.get(accountId);
    if (!task || task.upstream_slot !== accountId || task.upstream_slot_phase === 'running' || !account) return false;
    // A slot taken before phases was never counted in flight: it is given back whole.
    if (task.upstream_slot_phase === undefined) delete task.upstream_slot;
    else task.upstream_slot_phase = 'running';
    account.in_use -= 1;
    account.updated_at = now;
    return true;
  }

  async accepted(accountId: string, _now: string) {
    const account = this.accountsById.get(accountId);
    if (!account) return false;
    const cooling = (account.cool_streak ?? 0) > 0;
    if (cooling) {
      account.cool_streak = 0;
      delete account.probe_until;
      delete account.cool_until;
    }
    if (account.inflight_limit === undefined) return cooling;
    const accepted = (account.inflight_accepted ?? 0) + 1;
    const raised = raisedLimit(account, accepted);
    if (raised !== undefined) Object.assign(account, { inflight_limit: raised, inflight_accepted: 0 });
    else if (account.inflight_ceiling === undefined || account.inflight_limit < account.inflight_ceiling)
      account.inflight_accepted = accepted;
    return cooling;
  }

  async holders(accountId: string, updatedBefore: string, limit: number) {
    return [...this.tasks.tasks.values()]
      .filter((t) => t.upstream_slot === accountId && t.updated_at < updatedBefore)
      .slice(0, limit)
      .map((t) => ({ task_id: t.task_id, status: t.status }));
  }
}

/** The adapter's admission condition (functions/adapters/dynamodb/upstream-capacity.ts, `admission`). */
function admits(account: UpstreamAccount, now: string, options: AssignOptions): boolean {
  const inflight = account.inflight ?? 0;
  const room =
    account.enabled &&
    account.in_use < account.capacity &&
    (account.cool_until === undefined || account.cool_until < now) &&
    (account.inflight_limit === undefined || inflight < account.inflight_limit) &&
    (account.inflight_ceiling === undefined || inflight < account.inflight_ceiling);
  if (!room) return false;
  if (!options.probe) return (account.cool_streak ?? 0) === 0;
  return (
    account.cool_streak === options.probe.streak && (account.probe_until === undefined || account.probe_until < now)
  );
}

/** Records every answer; `waiting` lists the tokens still unanswered (an answered one is refused, as in AWS). */
export class RecordingWaker implements TaskWaker {
  readonly answers: { token: string; output?: unknown; error?: string; cause?: string }[] = [];

  async succeed(token: string, output: unknown) {
    if (this.answers.some((a) => a.token === token)) return false;
    this.answers.push({ token, output });
    return true;
  }

  async fail(token: string, error: string, cause: string) {
    if (this.answers.some((a) => a.token === token)) return false;
    this.answers.push({ token, error, cause });
    return true;
  }
}

/** What every use case that touches slots needs, over `tasks`. */
export function waitingRoom(tasks: InMemoryTasks, accounts?: Partial<UpstreamAccount>[]) {
  let counter = 0;
  const pauses: number[] = [];
  return {
    capacity: new InMemoryCapacity(tasks, accounts),
    waker: new RecordingWaker(),
    newToken: () => `callback-${(counter += 1)}`,
    /** Each back-off, recorded instead of waited. */
    pauses,
    pause: async (ms: number) => {
      pauses.push(ms);
    },
  };
}

/** A FakeProvider that also records which account (API key) each read and cancel of a job used. */
export class KeyedFakeProvider extends FakeProvider {
  readonly reads: { jobId: string; account: string | undefined }[] = [];
  readonly cancels: { jobId: string; account: string | undefined }[] = [];

  override async getJob(jobId: string, account?: string): Promise<ProviderJobStatus> {
    this.reads.push({ jobId, account });
    return super.getJob(jobId);
  }

  override async cancelJob(jobId: string, account?: string): Promise<CancelOutcome> {
    const outcome = await super.cancelJob(jobId);
    this.cancels.push({ jobId, account });
    return outcome;
  }
}

/**
 * Adds to each account's `in_use` the slots its tasks hold: for tests that build tasks already holding one
 * (an account's own `in_use` stands for holders outside the test).
 */
export function countHeldSlots(tasks: InMemoryTasks, capacity: InMemoryCapacity): void {
  for (const [accountId, account] of capacity.accountsById) {
    const held = [...tasks.tasks.values()].filter((task) => task.upstream_slot === accountId);
    account.in_use += held.filter((task) => task.upstream_slot_phase !== 'running').length;
    account.inflight = (account.inflight ?? 0) + held.filter((task) => task.upstream_slot_phase).length;
  }
}
