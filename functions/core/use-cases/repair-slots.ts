/**
 * The reconciler's part in upstream capacity (docs/upstream-capacity.md): a task that ended (or started
 * running) without giving its slot back (its function died between the move and the release) gives it back here, and every provider's waiting
 * room is dispatched once, in case a wake was lost. A slot is given back by the same once-only transaction
 * as everywhere, so this never frees a slot twice.
 */
import { isFinal } from '../task-status.js';
import type { TaskStatus } from '../task-status.js';
import { accountIdOf } from '../ports/upstream-capacity.js';
import type { WaitingRoomDeps } from './waiting-room.js';
import { dispatch, releaseQueuedSlot, releaseSlot } from './waiting-room.js';

/** Holders looked at per account and run: far more than a crash leaves behind. */
const HOLDERS_PER_RUN = 100;

export interface SlotRepairReport {
  released: number;
  dispatched: number;
}

export async function repairSlots(
  providers: readonly string[],
  deps: WaitingRoomDeps,
  minAgeMs: number,
): Promise<SlotRepairReport> {
  const report: SlotRepairReport = { released: 0, dispatched: 0 };
  const before = new Date(deps.now().getTime() - minAgeMs).toISOString();
  for (const provider of providers) {
    for (const account of await deps.capacity.accounts(provider)) {
      const accountId = accountIdOf(provider, account.name);
      for (const holder of await deps.capacity.holders(accountId, before, HOLDERS_PER_RUN)) {
        // A transferring task's job is final upstream: its slot should have been given back already. A running
        // one's job left the upstream's queue: its queued slot should have been.
        const status = holder.status as TaskStatus;
        const task = { task_id: holder.task_id, upstream_provider: provider, upstream_slot: accountId };
        if (isFinal(status) || status === 'transferring') {
          if (await releaseSlot(task, deps)) report.released += 1;
        } else if (status === 'running') {
          // The index holds no phase: the task is read (a running one usually gave its queued slot back).
          const full = await deps.tasks.get(holder.task_id);
          if (full?.upstream_slot !== accountId || full.upstream_slot_phase === 'running') continue;
          if (await releaseQueuedSlot(task, deps)) report.released += 1;
        }
      }
    }
    report.dispatched += await dispatch(provider, deps);
  }
  return report;
}
