/**
 * POST /api/v1/video/generate. Primary course: parse the body and read the model while the caller is
 * authenticated (one round trip); resolve options, price, check customer URLs; one transaction debits
 * the balance and the key's quota and creates the task. The tasks stream starts its lifecycle.
 */
import { InvalidRequestError } from '../api-error.js';
import { parseGenerationBody } from '../generation-request.js';
import type { GenerationBody, ModelReference } from '../generation-request.js';
import { unitsToYuan } from '../money.js';
import type { ModelCatalog } from '../ports/model-catalog.js';
import type { ApiKeyRepository } from '../ports/accounts.js';
import { KeyChangedError } from '../ports/task-repository.js';
import type { TaskRepository } from '../ports/task-repository.js';
import type { OutboundUrlPolicy } from '../ports/url-policy.js';
import { resolveGeneration } from '../resolve-generation.js';
import type { TaskRecord } from '../task.js';
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
  now: () => Date;
  newTaskId: () => string;
}

export interface SubmitTaskResult {
  task_id: string;
  status: 'pending';
  cost: number;
  created_at: string;
}

export async function submitTask(
  authenticated: Caller | Promise<Caller>,
  body: unknown,
  deps: SubmitTaskDeps,
): Promise<SubmitTaskResult> {
  const parsed = attempt(() => parseGenerationBody(body));
  const found = parsed.ok ? findModel(parsed.value.model, deps.models) : undefined;
  found?.catch(() => undefined);
  // Nothing, not even a 400 for the body, is answered before authentication succeeds.
  const caller = await authenticated;
  if (!parsed.ok) throw parsed.error;
  const request = parsed.value;
  const model = (await found) as VideoModel;
  const { costUnits, ...generation } = resolveGeneration(request, model);
  await deps.urls.assertPublic(customerUrls(request));

  const now = deps.now();
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
  try {
    await charge(task, caller, deps.tasks);
  } catch (error) {
    if (!(error instanceof KeyChangedError)) throw error;
    // The key's quota was set or lifted since authentication read it: once more, from the stored key.
    const current = await reauthenticate(caller, deps.keys);
    await charge({ ...task, key_quota_charged: current.keyHasQuota }, current, deps.tasks);
  }
  return { task_id: task.task_id, status: 'pending', cost: unitsToYuan(costUnits), created_at: createdAt };
}

function charge(task: TaskRecord, caller: Caller, tasks: TaskRepository): Promise<void> {
  return tasks.createCharged(task, {
    accountId: caller.accountId,
    keyHash: caller.keyHash,
    keyHasQuota: caller.keyHasQuota,
    costUnits: task.cost_units,
  });
}

async function findModel(reference: ModelReference, models: ModelCatalog): Promise<VideoModel> {
  const model =
    reference.by === 'id' ? await models.findById(reference.value) : await models.findByNameOrId(reference.value);
  if (!model) throw new InvalidRequestError(`unknown model "${reference.value}": see GET /api/v1/models`);
  return model;
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

function attempt<T>(run: () => T): { ok: true; value: T } | { ok: false; error: unknown } {
  try {
    return { ok: true, value: run() };
  } catch (error) {
    return { ok: false, error };
  }
}
