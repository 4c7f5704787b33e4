/**
 * POST /api/v1/upstream-callbacks/{id}/{secret}: the upstream reports a job's status change
 * (docs/task-lifecycle.md, "Completion"). Not a customer route (no API key): the per-task secret in the path guards it, and the job is read
 * again from the upstream before anything moves. Answers within Ark's 5 s (a 2 s read, then our writes).
 */
import { acceptCallback } from '../core/use-cases/upstream-completion.js';
import { waitingRoomDependencies } from '../adapters/wiring/capacity-dependencies.js';
import { LIVE_QUERY_TIMEOUT_MS, videoProviders } from '../adapters/wiring/provider-dependencies.js';
import { taskRepository } from '../adapters/wiring/service-dependencies.js';
import { publicRoute } from './api-handler.js';
import { isTaskId } from '../core/use-cases/get-task.js';
import { NotFoundError } from '../core/api-error.js';

const deps = {
  ...waitingRoomDependencies(),
  tasks: taskRepository(),
  providers: videoProviders(LIVE_QUERY_TIMEOUT_MS),
};

/** The status the body claims (Ark posts its task object), only to skip reads for jobs still under way. */
function claimedStatus(body: string | undefined): string | undefined {
  try {
    const status: unknown = (JSON.parse(body ?? '') as { status?: unknown } | null)?.status;
    return typeof status === 'string' ? status : undefined;
  } catch {
    return undefined;
  }
}

export const handler = publicRoute(async (event) => {
  const taskId = event.pathParameters?.['id'];
  const secret = event.pathParameters?.['secret'] ?? '';
  if (!isTaskId(taskId)) throw new NotFoundError('no such callback');
  await acceptCallback(taskId.toLowerCase(), secret, deps, claimedStatus(event.body));
  return { data: null };
});
