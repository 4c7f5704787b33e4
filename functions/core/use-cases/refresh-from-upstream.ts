/**
 * DESIGN §3 row 22: a query of a `pending`/`running` task first asks the upstream, briefly, and records
 * any forward move with a conditional write; it never moves a task backwards and money moves only
 * through the refund's once-only transaction. On any upstream error it answers from what it has.
 */
import type { TaskRepository } from '../ports/task-repository.js';
import type { VideoProvider } from '../ports/video-provider.js';
import type { TaskRecord } from '../task.js';
import { describeFailure, jobFailure } from '../workflow-errors.js';

export interface RefreshDeps {
  tasks: TaskRepository;
  /** Adapters with a short timeout: the client is waiting. */
  providers: Readonly<Record<string, VideoProvider>>;
  now: () => Date;
  onUpstreamError?: (task: TaskRecord, error: unknown) => void;
}

export async function refreshFromUpstream(task: TaskRecord, deps: RefreshDeps): Promise<TaskRecord> {
  if ((task.status !== 'pending' && task.status !== 'running') || !task.upstream_job_id) return task;
  const provider = deps.providers[task.upstream_provider];
  if (!provider) return task;
  let job;
  try {
    job = await provider.getJob(task.upstream_job_id);
  } catch (error) {
    deps.onUpstreamError?.(task, error);
    return task;
  }
  const now = deps.now().toISOString();
  switch (job.state) {
    case 'running':
      // Nothing to record for a task already running: answer from the read we have.
      if (task.status !== 'pending') return task;
      await deps.tasks.moveTo(task.task_id, 'running', {}, now);
      break;
    case 'succeeded':
      // The execution still does the transfer; the client is told to query again shortly.
      await deps.tasks.moveTo(task.task_id, 'transferring', {}, now);
      break;
    case 'failed': {
      const error = jobFailure(job);
      await deps.tasks.refund(task, 'failed', describeFailure({ Error: error.name, Cause: error.message }), now);
      break;
    }
    default:
      return task;
  }
  return (await deps.tasks.get(task.task_id)) ?? task;
}
