/**
 * A cancel that stopped the job against the workflow's look at it (docs/task-lifecycle.md, "Cancel"), in each
 * order of their steps and for each provider's way of reporting a cancelled job (Ark: with its time; Model
 * Studio: without): the task ends `refunded`, refunded once, the cancel answers it (200) and no webhook goes.
 */
import { describe, expect, it } from 'vitest';
import type { CancelOutcome, ProviderJobStatus } from '../../../functions/core/ports/video-provider.js';
import type { TaskRecord } from '../../../functions/core/task.js';
import { CANCELLED_MESSAGE, cancelTask } from '../../../functions/core/use-cases/cancel-task.js';
import { awaitCompletion, settleFromHint } from '../../../functions/core/use-cases/upstream-completion.js';
import { TASK_ID, taskRecord } from '../../support/task-records.js';
import { CALLER, countHeldSlots, FakeProvider, FakeWorkflow, InMemoryTasks, NOW, waitingRoom } from '../fakes.js';

/** A job queued upstream until cancelled; cancelled, it reads as the provider reports it. */
class QueuedJob extends FakeProvider {
  constructor(private readonly cancelledAt: string | undefined) {
    super();
    this.status = { state: 'queued' };
  }

  override async cancelJob(jobId: string): Promise<CancelOutcome> {
    this.cancelled.push(jobId);
    this.status = { state: 'cancelled', ...(this.cancelledAt && { cancelledAt: this.cancelledAt }) };
    return { outcome: 'cancelled' };
  }

  override async getJob(jobId: string): Promise<ProviderJobStatus> {
    this.polled.push(jobId);
    return this.status;
  }
}

/** Where the workflow looks: after the cancel stopped the job and before it refunds, or after the refund. */
type Order = 'workflow-first' | 'cancel-first';
const PROVIDERS = [
  ['ark (cancelled with its time)', NOW.toISOString()],
  ['model-studio (no time)', undefined],
] as const;
const LOOKS = [
  ['AwaitCompletion', (deps: Parameters<typeof awaitCompletion>[2]) => awaitCompletion(TASK_ID, 'wake-1', deps)],
  [
    'a callback or status query',
    async (deps: Parameters<typeof settleFromHint>[1]) => {
      await settleFromHint(await deps.tasks.get(TASK_ID), deps);
    },
  ],
] as const;

describe.each(PROVIDERS)('%s', (_, cancelledAt) => {
  describe.each(LOOKS)('the workflow’s %s', (_look, look) => {
    it.each<Order>(['workflow-first', 'cancel-first'])('%s: refunded once, 200, no webhook', async (order) => {
      const tasks = new InMemoryTasks(
        taskRecord({
          status: 'pending',
          upstream_job_id: 'job-1',
          upstream_slot: 'ark#default',
          upstream_slot_phase: 'queued',
          upstream_account: 'default',
          generation: { webhookUrl: 'https://hooks.example.com/done' },
        }),
      );
      const room = waitingRoom(tasks, [{}]);
      countHeldSlots(tasks, room.capacity);
      const provider = new QueuedJob(cancelledAt);
      const workflowDeps = { ...room, tasks, providers: { ark: provider }, now: () => NOW };
      const steps: string[] = [];
      const refund = tasks.refund.bind(tasks);
      tasks.refund = async (...args) => {
        // The cancel has stopped the job upstream: the workflow sees CANCELED before the cancel's refund.
        if (order === 'workflow-first' && args[1] === 'refunded') {
          steps.push('workflow');
          await look(workflowDeps);
        }
        steps.push(`refund ${args[1]}`);
        return refund(...args);
      };

      const result = await cancelTask(CALLER, TASK_ID, {
        ...room,
        tasks,
        workflow: new FakeWorkflow(),
        providers: { ark: provider },
        now: () => NOW,
        onCleanupError: (_task, step, error) => {
          throw new Error(`${step}: ${String(error)}`);
        },
      });
      if (order === 'cancel-first') {
        steps.push('workflow');
        await look(workflowDeps);
      }

      expect(provider.cancelled).toEqual(['job-1']);
      expect(steps).toEqual(
        order === 'workflow-first' ? ['workflow', 'refund refunded'] : ['refund refunded', 'workflow'],
      );
      expect(result).toMatchObject({ refunded: true, task: { status: 'refunded' } });
      const stored = (await tasks.get(TASK_ID)) as TaskRecord;
      expect(stored).toMatchObject({ status: 'refunded', error_message: CANCELLED_MESSAGE });
      expect(tasks.refunds).toEqual([{ taskId: TASK_ID, to: 'refunded', errorMessage: CANCELLED_MESSAGE }]);
      // No webhook: the execution is not told the task failed (a final answer carries notify: false at most).
      for (const answer of room.waker.answers) expect(answer.output).not.toMatchObject({ notify: true });
      expect(room.capacity.accountsById.get('ark#default')).toMatchObject({ in_use: 0, inflight: 0 });
    });
  });
});
