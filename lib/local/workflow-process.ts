/**
 * Child entry: the local stack's workflow side (lib/local/local-workflow.ts) in a process of its own,
 * forked by lib/local/workflow-process-client.ts. It talks to its parent over the IPC channel only:
 * `ready` (with the local Step Functions' endpoint) or `failed` once started; it answers `executions`
 * requests, pauses and resumes new tasks' starts, and stops on `stop`. Signals are the parent's business (a Ctrl-C reaches the whole process
 * group; the parent then stops this side in order), and when the parent dies (kill -9), the channel
 * closes and this process exits at once, as the rest of the stack has.
 */
import { startLocalWorkflow } from './local-workflow.js';
import type { LocalWorkflow, LocalWorkflowConfig } from './local-workflow.js';

/** Requests carry an id; the answer (`done`, or `executions` with the records) carries it back. */
export type ParentMessage =
  | { type: 'executions'; id: number }
  | { type: 'pause-task-starts'; id: number }
  | { type: 'resume-task-starts'; id: number }
  | { type: 'stop' };
export type WorkflowMessage =
  | { type: 'ready'; sfnEndpoint: string }
  | { type: 'failed'; message: string }
  | { type: 'executions'; id: number; records: ReturnType<LocalWorkflow['executions']> }
  | { type: 'done'; id: number };

const send = (message: WorkflowMessage) => process.send?.(message);
let stopping = false;
process.on('SIGINT', () => undefined);
process.on('SIGTERM', () => undefined);
process.on('disconnect', () => {
  if (!stopping) process.exit(1);
});

const config = JSON.parse(process.env['LOCAL_WORKFLOW_CONFIG'] ?? 'null') as LocalWorkflowConfig | null;
if (!config || !process.send) {
  console.error(
    'workflow-process: run by lib/local/workflow-process-client.ts (an IPC channel and LOCAL_WORKFLOW_CONFIG)',
  );
  process.exit(2);
}

const workflow: LocalWorkflow = await startLocalWorkflow(config).catch(async (error: unknown) => {
  // Exit once the message is out: exiting at once could drop it.
  const failed: WorkflowMessage = { type: 'failed', message: (error as Error).stack ?? String(error) };
  await new Promise<void>((resolve) => process.send!(failed, () => resolve()));
  return process.exit(1);
});

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
