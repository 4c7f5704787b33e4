export interface TaskWorkflow {
  /** Starts the lifecycle execution named `executionName` (default: the task id); a second start is a no-op. */
  start(taskId: string, executionName?: string): Promise<void>;
  /** Stops the task's execution, if it still runs. */
  stop(executionName: string, cause: string): Promise<void>;
  /** Whether the named execution is running, has ended, or never existed (or was lost). */
  status(executionName: string): Promise<'running' | 'ended' | 'missing'>;
}
