/**
 * POST /api/v1/video/generate: validate, price, charge and create in one transaction. The lifecycle starts
 * from the tasks table's stream (functions/workflow/start-executions.ts), not from here: the submit answers
 * after its one write, and a charged task is never left unstarted by a submit that failed half-way.
 */
import { AuthenticationError, InvalidRequestError } from '../api-error.js';
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
import { reauthenticate } from './authenticate.js';
import type { Caller } from './authenticate.js';

export interface SubmitTaskDeps {
  /** Read again only when the charge finds the caller's copy of the key out of date. */
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

export async function submitTask(caller: Caller, body: unknown, deps: SubmitTaskDeps): Promise<SubmitTaskResult> {
  const request = parseGenerationBody(body);
  const model = await findModel(request.model, deps.models);
  const { costUnits, ...generation } = resolveGeneration(request, model);
  await deps.urls.assertPublic(customerUrls(request));

  const now = deps.now();
  const createdAt = now.toISOString();
  const task: TaskRecord = {
    task_id: deps.newTaskId(),
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
  };
  try {
    await charge(task, caller, deps.tasks);
  } catch (error) {
    if (error instanceof AuthenticationError) {
      // The stored key refused what the caller's copy allowed: re-reading it replaces the copy, so this
      // instance's reads with the key stop at once too. Best effort: the answer is the 401 either way.
      await deps.keys.findByHash(caller.keyHash, { fresh: true }).catch(() => undefined);
      throw error;
    }
    if (!(error instanceof KeyChangedError)) throw error;
    // The key's quota was set or lifted since the caller's copy of it was read: once more, from the stored key.
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
