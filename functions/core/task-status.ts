/**
 * Task states and the moves between them (docs/task-lifecycle.md, "States", "Cancel", "Live status").
 * Every state change in storage is a conditional write naming the states it may come from,
 * and those come from this one table.
 */
export const TASK_STATUSES = ['pending', 'running', 'transferring', 'success', 'failed', 'refunded'] as const;
export type TaskStatus = (typeof TASK_STATUSES)[number];

export const FINAL_STATUSES: ReadonlySet<TaskStatus> = new Set(['success', 'failed', 'refunded']);

const ALLOWED_MOVES: Readonly<Record<TaskStatus, readonly TaskStatus[]>> = {
  // pending → transferring: the upstream may finish before we saw it running (a forward move).
  pending: ['running', 'transferring', 'failed', 'refunded'],
  running: ['transferring', 'failed', 'refunded'],
  // Cancel is refused once the video exists upstream; a broken transfer still fails and refunds.
  transferring: ['success', 'failed'],
  success: [],
  failed: [],
  refunded: [],
};

export function isFinal(status: TaskStatus): boolean {
  return FINAL_STATUSES.has(status);
}

export function canMove(from: TaskStatus, to: TaskStatus): boolean {
  return ALLOWED_MOVES[from].includes(to);
}

/** The states a task may be in for a move to `to` to be allowed: the condition of the write. */
export function statesBefore(to: TaskStatus): TaskStatus[] {
  return TASK_STATUSES.filter((from) => canMove(from, to));
}

export class IllegalTransitionError extends Error {
  override readonly name = 'IllegalTransitionError';
  constructor(
    readonly from: TaskStatus,
    readonly to: TaskStatus,
  ) {
    super(`a task cannot move from ${from} to ${to}`);
  }
}

export function assertMove(from: TaskStatus, to: TaskStatus): void {
  if (!canMove(from, to)) throw new IllegalTransitionError(from, to);
}
