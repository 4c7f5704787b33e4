/**
 * POST /api/v1/video/generate. Primary course: parse the body and read the model while the caller is
 * authenticated (one round trip); a live Idempotency-Key record answers at once; resolve options, price, check
 * customer URLs; one transaction debits the balance and the key's quota, creates the task and writes its
 * ledger entry and idempotency record. The tasks stream starts its lifecycle. A retired model is refused; a
 * deprecated one answers with Deprecation and Sunset headers.
 */
import { InvalidRequestError } from '../api-error.js';
import { idempotentRequest, idempotently, parseIdempotencyKey } from '../idempotency.js';
import type { IdempotencyRecord, IdempotentOutcome } from '../idempotency.js';
import type { IdempotencyStore } from '../ports/idempotency.js';
import { parseGenerationBody } from '../generation-request.js';
import type { GenerationBody, ModelReference } from '../generation-request.js';
import { deprecationHeaders, phaseOf, retiredAt } from '../model-lifecycle.js';
import { unitsToYuan } from '../money.js';
import type { ModelCatalog } from '../ports/model-catalog.js';
import type { ApiKeyRepository } from '../ports/accounts.js';
import { KeyChangedError } from '../ports/task-repository.js';
import type { TaskRepository } from '../ports/task-repository.js';
import type { OutboundUrlPolicy } from '../ports/url-policy.js';
import type { UploadReference, UploadReferences } from '../ports/uploads.js';
import { looksLikeFileUrl } from '../uploads.js';
import type { ReferenceKind } from '../uploads.js';
import { resolveGeneration } from '../resolve-generation.js';
import { costBreakdown } from '../task.js';
import type { CostBreakdown, TaskRecord } from '../task.js';
import { lifecycleOf, offeredOnPlatform } from '../video-model.js';
import type { VideoModel } from '../video-model.js';
import { pendingWebhookKeys } from '../webhook.js';
import { reauthenticate } from './authenticate.js';
import type { Caller } from './authenticate.js';

export interface SubmitTaskDeps {
  /** Read again only when the charge finds the key changed since authentication read it. */
  keys: ApiKeyRepository;
  models: ModelCatalog;
  tasks: TaskRepository;
  urls: OutboundUrlPolicy;
  /**
   * The uploads a submit names by file_url (docs/api-contract.md, "Uploads"): checked from what storage holds, never the client.
   * Optional for callers that submit no uploads; a file_url without it is refused, never passed unchecked.
   */
  uploads?: UploadReferences;
  idempotency: IdempotencyStore;
  now: () => Date;
  newTaskId: () => string;
  /** Epoch ms by which a charge must be settled (the function's time left less its answer's margin). */
  settleBy?: () => number;
}

export interface SubmitTaskResult {
  task_id: string;
  status: 'pending';
  cost: number;
  /** Absent in answers replayed from before it was kept. */
  cost_breakdown?: CostBreakdown;
  created_at: string;
}

/** The Idempotency-Key's scope: a key names one submit of the account. */
export const SUBMIT_IDEMPOTENCY_SCOPE = 'video.generate';

export async function submitTask(
  authenticated: Caller | Promise<Caller>,
  body: unknown,
  deps: SubmitTaskDeps,
): Promise<SubmitTaskResult> {
  return (await submitTaskIdempotently(authenticated, body, deps, undefined)).answer;
}

/**
 * As submitTask, once per Idempotency-Key (docs/api-contract.md, "Idempotency-Key"): the same key and body answer the first answer
 * again (`replayed`), checked before the body so a retry is answered even if the catalog changed since; another
 * body with the key is a 400. The header's value is checked only after authentication, as the body.
 */
export async function submitTaskIdempotently(
  authenticated: Caller | Promise<Caller>,
  body: unknown,
  deps: SubmitTaskDeps,
  idempotencyKeyHeader: string | undefined,
): Promise<IdempotentOutcome<SubmitTaskResult> & { headers: Record<string, string> }> {
  const parsed = attempt(() => parseGenerationBody(body));
  const found = parsed.ok ? findModel(parsed.value.model, deps.models) : undefined;
  found?.catch(() => undefined);
  // Nothing, not even a 400 for the body, is answered before authentication succeeds.
  const caller = await authenticated;
  const key = parseIdempotencyKey(idempotencyKeyHeader);
  const keyed =
    key === undefined ? undefined : idempotentRequest(caller.accountId, SUBMIT_IDEMPOTENCY_SCOPE, key, body);
  const now = deps.now();
  const outcome: IdempotentOutcome<SubmitTaskResult> = await idempotently(keyed, deps.idempotency, now, (record) => {
    if (!parsed.ok) throw parsed.error;
    return createTask(caller, parsed.value, found as Promise<VideoModel>, now, deps, record);
  });
  // A deprecated model says so on every submit, a replayed one too (docs/api-contract.md, "Models that come and go").
  const model = await found?.catch(() => undefined);
  return { ...outcome, headers: model ? deprecationHeaders(lifecycleOf(model), now) : {} };
}

async function createTask(
  caller: Caller,
  request: GenerationBody,
  found: Promise<VideoModel>,
  now: Date,
  deps: SubmitTaskDeps,
  record: (taskId: string, answer: SubmitTaskResult) => IdempotencyRecord | undefined,
): Promise<SubmitTaskResult> {
  const model = await found;
  assertNotRetired(model, now);
  const { costUnits, ...generation } = resolveGeneration(request, model);
  await deps.urls.assertPublic(customerUrls(request).filter(({ url }) => !looksLikeFileUrl(url)));
  await assertUploadsUsable(uploadReferences(request), caller.accountId, deps.uploads);

  const createdAt = now.toISOString();
  const taskId = deps.newTaskId();
  const task: TaskRecord = {
    task_id: taskId,
    account_id: caller.accountId,
    key_hash: caller.keyHash,
    key_quota_charged: caller.keyHasQuota,
    form: request.form,
    status: 'pending',
    cost_units: costUnits,
    generation,
    upstream_provider: model.record.upstream.provider,
    upstream_model: model.record.upstream.model,
    created_at: createdAt,
    updated_at: createdAt,
    deadline_at: new Date(now.getTime() + model.record.max_generation_seconds * 1000).toISOString(),
    // Written with the task, so no crash can leave a final task owing a webhook the requeuer cannot find.
    ...(generation.webhookUrl ? pendingWebhookKeys(taskId, createdAt) : {}),
  };
  const answer: SubmitTaskResult = {
    task_id: task.task_id,
    status: 'pending',
    cost: unitsToYuan(costUnits),
    ...(generation.costParts ? { cost_breakdown: costBreakdown(generation.costParts) } : {}),
    created_at: createdAt,
  };
  const idempotency = record(taskId, answer);
  try {
    await charge(task, caller, deps.tasks, idempotency, deps.settleBy?.());
  } catch (error) {
    if (!(error instanceof KeyChangedError)) throw error;
    // The key's quota was set or lifted since authentication read it: once more, from the stored key.
    const current = await reauthenticate(caller, deps.keys);
    const retask = { ...task, key_quota_charged: current.keyHasQuota };
    await charge(retask, current, deps.tasks, idempotency, deps.settleBy?.());
  }
  return answer;
}

function charge(
  task: TaskRecord,
  caller: Caller,
  tasks: TaskRepository,
  idempotency: IdempotencyRecord | undefined,
  settleBy: number | undefined,
): Promise<void> {
  return tasks.createCharged(task, {
    ...(settleBy !== undefined && { settleBy }),
    accountId: caller.accountId,
    keyHash: caller.keyHash,
    keyHasQuota: caller.keyHasQuota,
    costUnits: task.cost_units,
    ...(idempotency && { idempotency }),
  });
}

async function findModel(reference: ModelReference, models: ModelCatalog): Promise<VideoModel> {
  const model =
    reference.by === 'id' ? await models.findById(reference.value) : await models.findByNameOrId(reference.value);
  if (!model) throw new InvalidRequestError(`unknown model "${reference.value}": see GET /api/v1/models`);
  return model;
}

/** A retired model is refused before anything is charged, naming it, when, and what to move to. */
function assertNotRetired(model: VideoModel, now: Date): void {
  const lifecycle = lifecycleOf(model);
  const { name } = model.record;
  if (!offeredOnPlatform(model, now) && phaseOf(lifecycle, now) !== 'retired') {
    // The upstream names no id for it on this stack's platform: never offered here.
    throw new InvalidRequestError(`model: "${name}" is not offered by this service: see GET /api/v1/models`);
  }
  if (phaseOf(lifecycle, now) !== 'retired') return;
  const { replacement } = lifecycle;
  const when = retiredAt(lifecycle)?.slice(0, 10);
  const instead = replacement ? `use "${replacement}" instead` : 'choose another: see GET /api/v1/models';
  throw new InvalidRequestError(`model: "${name}" was retired on ${when} and is no longer made; ${instead}`);
}

function customerUrls(request: GenerationBody): { field: string; url: string }[] {
  const list = (field: string, urls: string[]) => urls.map((url, index) => ({ field: `${field}[${index}]`, url }));
  return [
    ...list(request.fieldNames.imageUrls, request.imageUrls),
    ...list(request.fieldNames.videoUrls, request.videoUrls),
    ...list(request.fieldNames.audioUrls, request.audioUrls),
    ...(request.webhookUrl ? [{ field: request.fieldNames.webhookUrl, url: request.webhookUrl }] : []),
  ];
}

async function assertUploadsUsable(references: UploadReference[], accountId: string, uploads?: UploadReferences) {
  if (references.length === 0) return;
  if (!uploads) throw new Error('submitTask was given file_urls but no upload checker (SubmitTaskDeps.uploads)');
  await uploads.assertUsable(references, accountId);
}

function uploadReferences(request: GenerationBody): UploadReference[] {
  const list = (field: string, kind: ReferenceKind, urls: string[]) =>
    urls.flatMap((url, index) => (looksLikeFileUrl(url) ? [{ field: `${field}[${index}]`, kind, url }] : []));
  return [
    ...list(request.fieldNames.imageUrls, 'image', request.imageUrls),
    ...list(request.fieldNames.videoUrls, 'video', request.videoUrls),
    ...list(request.fieldNames.audioUrls, 'audio', request.audioUrls),
  ];
}

function attempt<T>(run: () => T): { ok: true; value: T } | { ok: false; error: unknown } {
  try {
    return { ok: true, value: run() };
  } catch (error) {
    return { ok: false, error };
  }
}
