/**
 * Child entry: the workflow side (local-workflow.ts) in a process of its own, forked by
 * workflow-process-client.ts. IPC only: `ready` or `failed`, `executions` requests, pause and resume of
 * new tasks' starts, `stop`; signals and the parent's death as in forked-process.ts.
 */
import { childOfLocalStack, reportStartFailure } from './forked-process.js';
import type { StartMessage } from './forked-process.js';
import { startLocalWorkflow } from './local-workflow.js';
import type { LocalWorkflow, LocalWorkflowConfig } from './local-workflow.js';

/** Requests carry an id; the answer (`done`, or `executions` with the records) carries it back. */
export type ParentMessage =
  | { type: 'executions'; id: number }
  | { type: 'pause-task-starts'; id: number }
  | { type: 'resume-task-starts'; id: number }
  | { type: 'stop' };
export type WorkflowReady = { sfnEndpoint: string };
export type WorkflowMessage =
  | StartMessage<WorkflowReady>
  | { type: 'executions'; id: number; records: ReturnType<LocalWorkflow['executions']> }
  | { type: 'done'; id: number };

const send = (message: WorkflowMessage) => process.send?.(message);
let stopping = false;
const config = childOfLocalStack<LocalWorkflowConfig>('workflow-process', () => stopping);
const workflow: LocalWorkflow = await startLocalWorkflow(config).catch(reportStartFailure);

process.on('message', (message: ParentMessage) => {
  if (message.type === 'executions') {
    send({ type: 'executions', id: message.id, records: workflow.executions() });
  } else if (message.type === 'pause-task-starts') {
    workflow.pauseTaskStarts();
    send({ type: 'done', id: message.id });
  } else if (message.type === 'resume-task-starts') {
    workflow.resumeTaskStarts();
    send({ type: 'done', id: message.id });
  } else if (message.type === 'stop' && !stopping) {
    stopping = true;
    void workflow.stop().finally(() => process.exit(0));
  }
});
send({ type: 'ready', sfnEndpoint: workflow.sfnEndpoint });
