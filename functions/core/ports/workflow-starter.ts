export interface WorkflowStarter {
  /** Starts the lifecycle execution named by the task id; starting it twice is harmless. */
  start(taskId: string): Promise<void>;
}
