/**
 * The parent's side of lib/dev/local/workflow-process.ts: forks the workflow side of the local stack (on this
 * Node, through the repository's tsx) and waits until its local Step Functions answers.
 */
import { forkLocalProcess } from './forked-process.js';
import type { LocalWorkflowConfig } from './local-workflow.js';
import type { ExecutionRecord } from './step-functions-server.js';
import type { ParentMessage, WorkflowMessage, WorkflowReady } from './workflow-process.js';

export interface WorkflowProcess {
  pid: number;
  sfnEndpoint: string;
  /** Resolves (with what happened) if the process exits without being stopped. */
  unexpectedExit: Promise<string>;
  /** Every execution the local Step Functions holds, oldest first. */
  executions(): Promise<ExecutionRecord[]>;
  /**
   * Holds new tasks' starts (the tasks stream's event source), as disabling the event source mapping would;
   * resolves once the workflow process has applied it.
   */
  pauseTaskStarts(): Promise<void>;
  /** Hands over what was written while paused, and what comes next. */
  resumeTaskStarts(): Promise<void>;
  /** Stops the workflow side in order (event sources, reconciler, executions); SIGKILL after `graceMs`. */
  stop(graceMs?: number): Promise<void>;
}

export async function startWorkflowProcess(config: LocalWorkflowConfig, timeoutMs = 180_000): Promise<WorkflowProcess> {
  const forked = await forkLocalProcess<WorkflowReady>({
    name: 'the workflow process',
    entry: 'lib/dev/local/workflow-process.ts',
    config,
    timeoutMs,
  });
  const { child, exited } = forked;
  const send = (message: ParentMessage) => child.connected && child.send(message);

  let nextId = 0;
  const pending = new Map<number, { resolve: (message: WorkflowMessage) => void; reject: (error: Error) => void }>();
  child.on('message', (message: WorkflowMessage) => {
    if (message.type !== 'executions' && message.type !== 'done') return;
    pending.get(message.id)?.resolve(message);
    pending.delete(message.id);
  });
  void exited.then(() => {
    for (const request of pending.values()) request.reject(new Error('the workflow process exited'));
    pending.clear();
  });
  /** Sends a request and resolves with its answer. */
  const ask = (type: 'executions' | 'pause-task-starts' | 'resume-task-starts') =>
    new Promise<WorkflowMessage>((resolve, reject) => {
      if (!child.connected) return reject(new Error('the workflow process is gone'));
      const id = nextId++;
      pending.set(id, { resolve, reject });
      send({ type, id });
    });
  return {
    pid: child.pid!,
    sfnEndpoint: forked.ready.sfnEndpoint,
    unexpectedExit: forked.unexpectedExit,
    executions: async () => {
      const answer = await ask('executions');
      return answer.type === 'executions' ? answer.records : [];
    },
    pauseTaskStarts: async () => void (await ask('pause-task-starts')),
    resumeTaskStarts: async () => void (await ask('resume-task-starts')),
    stop: (graceMs = 10_000) => forked.stop(graceMs),
  };
}
