/**
 * Starts the lifecycle execution of each new task the tasks table's stream hands over (TASK_STARTS in
 * lib/resource-definitions.ts). The execution is named by the task id, so a record delivered twice (the
 * stream is at-least-once), or a task the reconciler started first, starts nothing more.
 */
import type { WorkflowStarter } from '../ports/workflow-starter.js';

/** A new task as the stream names it: its id and the record's position (sequence number) in the stream. */
export interface NewTask {
  taskId: string;
  position: string;
}

export interface StartExecutionsDeps {
  workflow: WorkflowStarter;
  onStartFailure: (taskId: string, error: unknown) => void;
}

/** At most this many StartExecution calls at once: a batch of 100 stays well inside the API's burst. */
const CONCURRENCY = 10;

/** Starts every task's execution; answers the positions of those that failed, for the event source to retry. */
export async function startExecutions(tasks: readonly NewTask[], deps: StartExecutionsDeps): Promise<string[]> {
  const failed: string[] = [];
  for (let offset = 0; offset < tasks.length; offset += CONCURRENCY) {
    await Promise.all(
      tasks.slice(offset, offset + CONCURRENCY).map(async (task) => {
        try {
          await deps.workflow.start(task.taskId);
        } catch (error) {
          deps.onStartFailure(task.taskId, error);
          failed.push(task.position);
        }
      }),
    );
  }
  return failed;
}
